import fs from 'node:fs/promises';
import { runFile } from '../vault/runs.js';

/**
 * A run's lease: the mtime of its run record (`KANBAN/.runs/<run>.json`), which its supervisor
 * refreshes every `LEASE_REFRESH_MS` while it lives, the way the round lock's holder refreshes the
 * lock folder's mtime. A pid can only be judged on its own host; a lease can be judged from any
 * host sharing the board, so a host that dies (or freezes, or loses the board) holding claims has
 * them reclaimed once their leases are older than `lease_stale_after`, not after `zombie_after`.
 *
 * The record's mtime is the lease because a record update (an atomic rename of a new file) renews
 * it too, and a reader needs no second file: one `stat` beside the read it already makes. Only
 * records that say `leased: true` are judged by it (a supervisor from before leases never refreshed).
 */

/** How often a supervisor renews its lease; `lease_stale_after` (60 s by default) is several of these. */
export const LEASE_REFRESH_MS = 10_000;

/**
 * Keep renewing the run's lease until the returned function is called. A failed renewal (the
 * board's mount hiccuped) is reported and retried on the next tick: one miss is well inside
 * `lease_stale_after`. The timer never keeps the process alive on its own.
 */
export function keepLease(kanbanDir: string, runId: string, onError: (error: Error) => void, everyMs = LEASE_REFRESH_MS): () => void {
  const file = runFile(kanbanDir, runId);
  let failing = false;
  const timer = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).then(
      () => {
        failing = false;
      },
      (error: Error) => {
        // Reported once per run of failures, not every 10 s.
        if (!failing) onError(error);
        failing = true;
      },
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * How long ago the run's lease was last renewed, by this host's clock (hosts keep their clocks in
 * sync, as for the round lock: docs/scale.md); undefined when the record cannot be stat'ed.
 */
export async function leaseAge(kanbanDir: string, runId: string, now = Date.now()): Promise<number | undefined> {
  try {
    const { mtimeMs } = await fs.stat(runFile(kanbanDir, runId));
    return Math.max(0, now - mtimeMs);
  } catch {
    return undefined;
  }
}
