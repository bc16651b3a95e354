import fs from 'node:fs/promises';
import path from 'node:path';
import { isBoardTempName } from '../vault/atomic-write.js';
import { runsDir } from '../vault/runs.js';
import type { RoundContext } from './context.js';
import type { ListedTemps } from '../core/types.js';

/** A temp file is written and renamed within milliseconds; one this old was left by a crash. */
export const TEMP_FILE_MAX_AGE_MS = 60 * 60_000;

export interface SweepOptions {
  readonly olderThanMs?: number;
  /** The real clock (temp files age in real time, whatever `--now` says). */
  readonly clock?: () => number;
  /**
   * What the round's census listed (its folders, the temp files in them): those folders are not
   * listed again. A temp file an hour old now was there when the census listed its folder, so the
   * census's listing holds every file this sweep would remove; on a network mount a listing of
   * `pending/` or `done/` is a round trip per few hundred entries.
   */
  readonly listed?: ListedTemps;
}

/**
 * The folders where the board writes through temp files: the state folders (and each archive
 * month), the run records, and the lock area (KANBAN itself, where older boards kept the lock's
 * owner file). Not the inside of `.board.lock/`: the round holds it, and removing an entry there
 * would change the folder's mtime, which proper-lockfile would take for a compromised lock; a lock
 * folder and its tombstones are removed whole by src/vault/lock.ts.
 */
async function sweptFolders(ctx: Pick<RoundContext, 'layout'>): Promise<string[]> {
  const { layout } = ctx;
  const months = await fs.readdir(layout.archive, { withFileTypes: true }).catch(() => []);
  return [
    layout.kanban,
    layout.scheduled,
    layout.pending,
    layout.inProgress,
    layout.done,
    ...months.filter((m) => m.isDirectory()).map((m) => path.join(layout.archive, m.name)),
    runsDir(layout.kanban),
  ];
}

/**
 * A round step: remove the temp files a crash left beside cards and run records
 * (`.<name>.<pid>.<8 hex>.tmp`, see src/vault/atomic-write.ts) once they are older than an hour,
 * logging each. Nothing else is touched: a name must match the board's own temp-name pattern
 * exactly and be a plain file. Runs only inside a tick's round (never in `dry-run`); a failure to
 * remove one is logged and never fails the round. Returns the vault-relative paths removed.
 */
export async function sweepTempFiles(ctx: Pick<RoundContext, 'layout' | 'logger'>, options: SweepOptions = {}): Promise<string[]> {
  const maxAge = options.olderThanMs ?? TEMP_FILE_MAX_AGE_MS;
  const now = (options.clock ?? Date.now)();
  const removed: string[] = [];
  // The census's temp files by folder; a folder it listed is not listed again.
  const listed = new Map<string, string[]>((options.listed?.folders ?? []).map((folder) => [folder, []]));
  for (const file of options.listed?.files ?? []) listed.get(path.dirname(file))?.push(file);
  for (const folder of await sweptFolders(ctx)) {
    const candidates = listed.get(folder) ?? (await fs.readdir(folder, { withFileTypes: true }).catch(() => [])).filter((e) => e.isFile() && isBoardTempName(e.name)).map((e) => path.join(folder, e.name));
    for (const file of candidates) {
      try {
        const stat = await fs.lstat(file);
        if (!stat.isFile() || now - stat.mtimeMs <= maxAge) continue;
        // Judged a plain file by that lstat: one unlink (fs.rm would lstat it again).
        await fs.unlink(file);
        const relative = ctx.layout.relative(file);
        removed.push(relative);
        ctx.logger.info({ file: relative, modified: stat.mtime.toISOString() }, 'removed a temp file left by a crash');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // renamed or removed meanwhile
        ctx.logger.warn({ file: ctx.layout.relative(file), err: error }, 'could not remove a stale temp file');
      }
    }
  }
  return removed;
}
