import { formatProblem, RoundError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ListedTemps, Plan, VaultSnapshot } from '../core/types.js';
import type { LoadedBoard } from '../config/load-config.js';
import { acquireRoundLock, lockPaths, readLockOwner, type LockOwner } from '../vault/lock.js';
import { assertVault } from './read-snapshot.js';
import type { VaultLayout } from '../vault/layout.js';
import type { Transition } from './context.js';
import { roundCounts, writeLastRound } from './last-round.js';
import { executePlan, planFromVault } from './run-round.js';
import type { Spawner } from './spawner.js';
import type { CensusCache } from '../vault/census-cache.js';

export interface LockedRoundInput {
  readonly board: LoadedBoard;
  readonly layout: VaultLayout;
  readonly now: Date;
  /** `board watch` only: the stat-validated memo of the census's reads (see readSnapshot). */
  readonly cache?: CensusCache;
  /** `board watch` only: sees the snapshot the round planned from (the profiles its fast path re-reads). */
  readonly onSnapshot?: (snapshot: VaultSnapshot) => void;
}

export type LockedRoundResult =
  | { readonly skipped: true; readonly holder?: LockOwner; readonly reason?: string }
  | { readonly skipped: false; readonly plan: Plan; readonly transitions: Transition[]; readonly tookOverFrom?: LockOwner };

/**
 * One round under the vault's round lock: the heartbeat `board tick` runs once and `board watch`
 * runs on every signal. A round that finds the lock held is skipped (never queued), so a timer and
 * a watcher on one vault never overlap. Each round that ran, or failed, leaves `last-round.json`.
 */
export async function runLockedRound(input: LockedRoundInput, logger: Logger, spawner: Spawner, by = 'tick'): Promise<LockedRoundResult> {
  const { board, layout, now } = input;
  // Say "no board here" rather than a lock error when the vault itself is wrong.
  await assertVault(layout);
  let compromised: Error | undefined;
  const lock = await acquireRoundLock(layout.kanban, (error) => {
    compromised = error;
    logger.error({ err: error }, 'round lock compromised');
  }).catch((error: Error) => {
    throw new RoundError(`cannot take the round lock in ${layout.kanban}: ${error.message}`);
  });
  if (!lock.acquired) {
    logger.info({ holder: lock.holder, reason: lock.reason }, `round lock held: skipping this ${by === 'tick' ? 'tick' : 'round'}`);
    return { skipped: true, reason: lock.reason, ...(lock.holder ? { holder: lock.holder } : {}) };
  }
  const tookOverFrom = lock.tookOver?.from;
  if (lock.tookOver) {
    const dead = lock.tookOver.why.startsWith('its holder');
    logger.warn({ previous: tookOverFrom, why: lock.tookOver.why }, dead ? 'took over the round lock of a dead process' : 'took over a stale round lock');
  }
  // The owner record as this round wrote it: compared again at the end (see lostLock).
  const ours = await readLockOwner(lockPaths(layout.kanban).owner).catch(() => undefined);
  try {
    let listedTemps: ListedTemps | undefined;
    const plan = await planFromVault({ board, layout, now }, input.cache, (snapshot) => {
      listedTemps = snapshot.listedTemps;
      input.onSnapshot?.(snapshot);
    });
    for (const p of plan.invalid) logger.error({ card: p.file, field: p.field, reason: p.reason }, 'unreadable card: not touched');
    for (const p of [...plan.profileProblems, ...plan.templateProblems]) logger.error({ file: p.file, field: p.field, reason: p.reason }, formatProblem(p));
    const transitions = await executePlan({ board, layout, now, spawner, logger }, plan, listedTemps ? { listedTemps } : {});
    // proper-lockfile learns of a lost lock only on its next refresh, which a long round may not
    // have reached: the lock's owner record says at once whether another round took it over.
    compromised ??= await lostLock(layout.kanban, ours);
    if (compromised) throw new RoundError(`the round lock was lost during the round (another round may have run at the same time; check \`board status\`): ${compromised.message}`);
    await recordLastRound(board, logger, { time: now.toISOString(), outcome: 'ok', by, vault: layout.root, counts: roundCounts(plan, transitions) });
    return { skipped: false, plan, transitions, ...(tookOverFrom ? { tookOverFrom } : {}) };
  } catch (error) {
    await recordLastRound(board, logger, { time: now.toISOString(), outcome: 'failed', by, vault: layout.root, error: (error as Error).message });
    throw error;
  } finally {
    await lock.release().catch((error: Error) => logger.error({ err: error }, 'could not release the round lock'));
  }
}

/** An error when the lock's owner record is no longer the one this round took, else undefined. */
async function lostLock(kanbanDir: string, ours: LockOwner | undefined): Promise<Error | undefined> {
  if (!ours) return undefined; // an owner record we could not read at the start proves nothing now
  const file = lockPaths(kanbanDir).owner;
  const owner = await readLockOwner(file).catch(() => undefined);
  if (owner && owner.pid === ours.pid && owner.host === ours.host && owner.since === ours.since && owner.token === ours.token) return undefined;
  return new Error(owner ? `${file} now names pid ${owner.pid} on ${owner.host} (since ${owner.since})` : `${file} is gone or unreadable`);
}

async function recordLastRound(board: LoadedBoard, logger: Logger, record: Parameters<typeof writeLastRound>[1]): Promise<void> {
  // Status is a convenience: failing to write it never fails the round.
  await writeLastRound(board.config.logsDir, record).catch((error: Error) => logger.warn({ err: error }, 'could not write last-round.json'));
}
