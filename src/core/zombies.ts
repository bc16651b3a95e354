import type { Card } from '../schema/card.js';
import { isBlocked } from './census.js';
import { formatDuration, parseTimestamp } from './time.js';
import type { PlannedReclaim, RunFact } from './types.js';

/**
 * Step 5: zombies. Looks at every claimed card and decides which go back to `pending/`:
 * - torn: moved but never stamped (a crash between move and stamp): back without an attempt;
 * - never-started: stamped but its supervisor never ran (a crash between stamp and spawn):
 *   back without an attempt, once the start grace has passed;
 * - dead-worker: its run ended (or its supervisor died) while the card is still claimed:
 *   back at once, attempt + 1;
 * - lease gone stale: its supervisor (on any host) stopped refreshing its run's lease for longer than
 *   `lease_stale_after` (its host died, froze or lost the board): back, attempt + 1 (kind dead-worker);
 * - expired: claimed longer than `zombie_after` (the cap on a live, refreshing worker): back, attempt + 1;
 * - closed: a close that crashed between its edit and its move (its lock still holds the intent): on to done/.
 * An attempt that reaches `max_attempts` sends the card back blocked.
 */

export interface ZombieSettings {
  readonly zombieAfterMs: number;
  readonly startGraceMs: number;
  readonly maxAttempts: number;
  readonly leaseStaleAfterMs: number;
}

/** The run id a claim's supervisor records itself under: derivable from the card alone. */
export function runIdFor(cardFile: string, claimed: string, attempts: number): string {
  const stem = cardFile.replace(/\.md$/, '');
  return `${stem}.${claimed.replace(/[^0-9A-Za-z]/g, '')}.a${attempts}`;
}

/** What the shell knows about a claim beyond its run record. */
export interface ClaimFacts {
  /** The `closed` value a close recorded in its (now stale) lock before it died: see card-lock.ts. */
  readonly interruptedClose?: string;
  /** Never-started returns of this card in a row before this claim (from its run records). */
  readonly neverStartedBefore?: number;
  /** The card's previous run, when it too ended without closing the card (from its run records). */
  readonly previousFailure?: RunFact;
}

/**
 * Why a run ended without closing, in one line, and where its log is: what the card's Record, the
 * tick and `status` say. `failure` is the exit ("exit code 1"), `reason` the line the supervisor
 * kept from its output.
 */
export function failureDetail(run: RunFact): string {
  return `${run.reason !== undefined ? `: ${run.reason}` : ''}${run.log !== undefined ? ` (log: ${run.log})` : ''}`;
}

/**
 * Two failures are the same when the worker ended the same way (exit code, or the stop) and said
 * the same last error line. Without a reason line there is nothing to compare: never the same.
 */
export function sameFailure(a: RunFact, b: RunFact): boolean {
  if (a.reason === undefined || b.reason === undefined) return false;
  return a.reason === b.reason && (a.exitCode ?? null) === (b.exitCode ?? null) && (a.stopped ?? null) === (b.stopped ?? null);
}

/** The third never-started return in a row blocks the card (CONTRACT "No silent loop"). */
export const NEVER_STARTED_LIMIT = 3;

export function findZombie(
  cardFile: string,
  card: Card,
  run: RunFact | undefined,
  now: Date,
  settings: ZombieSettings,
  stamp: string,
  facts: ClaimFacts = {},
): PlannedReclaim | undefined {
  if (isBlocked(card)) return undefined;
  // `board card close` edits first and moves second, under a lock that holds the close's outcome:
  // a crash between the two leaves that intent. Its work is done and recorded, so the move is
  // finished, never reclaimed as a zombie. A `closed` with no such intent is not trusted (a card
  // or a worker can write the field itself): the claim is judged like any other.
  if (typeof card.closed === 'string' && card.closed.trim() !== '' && facts.interruptedClose === card.closed) {
    return {
      card: cardFile,
      kind: 'closed',
      reason: `closed ${card.closed} by ${card.agent ?? 'its worker'} but still in in-progress/: finishing the move to done/`,
      attempts: card.attempts,
      closed: card.closed,
      ...(card.claimed ? { claim: card.claimed } : {}),
    };
  }
  const claimed = card.claimed ?? '';
  const claimedAt = parseTimestamp(claimed);
  if (claimed === '' || Number.isNaN(claimedAt)) {
    return {
      card: cardFile,
      kind: 'torn',
      reason: claimed === '' ? 'torn claim: in in-progress/ without `claimed`' : `torn claim: \`claimed\` "${claimed}" is not a timestamp`,
      attempts: card.attempts,
    };
  }
  const age = now.getTime() - claimedAt;
  const runId = runIdFor(cardFile, claimed, card.attempts);
  const spend = (kind: 'dead-worker' | 'expired', reason: string): PlannedReclaim => {
    const attempts = card.attempts + 1;
    const exhausted = attempts >= settings.maxAttempts;
    // A deterministic failure is not retried blindly: the same one twice in a row blocks the card.
    const repeated = kind === 'dead-worker' && run !== undefined && facts.previousFailure !== undefined && sameFailure(run, facts.previousFailure);
    const same = repeated ? `the same failure twice in a row: ${run.reason!}${run.log !== undefined ? ` (log: ${run.log})` : ''}` : undefined;
    const block = same !== undefined
      ? `${stamp} ${same}`
      : exhausted
        ? `${stamp} ${reason}; attempts exhausted (${attempts} of max_attempts ${settings.maxAttempts})`
        : undefined;
    return {
      card: cardFile,
      kind,
      reason,
      attempts,
      claim: claimed,
      runId,
      ...(block !== undefined ? { block, ...(same !== undefined ? { repeated: same } : {}) } : {}),
    };
  };
  // A worker that never started spends no attempt (it is not the card's failure), but the third
  // such return in a row blocks the card: a board that cannot start workers says so on the card.
  const neverStarted = (reason: string): PlannedReclaim => {
    const inARow = (facts.neverStartedBefore ?? 0) + 1;
    const exhausted = inARow >= NEVER_STARTED_LIMIT;
    return {
      card: cardFile,
      kind: 'never-started',
      reason,
      attempts: card.attempts,
      claim: claimed,
      runId,
      ...(exhausted ? { block: `${stamp} ${reason}; its worker never started ${inARow} times in a row (fix the harness, then unblock)` } : {}),
    };
  };
  if (run?.state === 'exited' && run.startError !== undefined) {
    return neverStarted(`its worker could not start: ${run.startError}`);
  }
  if (run?.state === 'exited') {
    // Its worker closed the card under this claim: the card read here is older than its run
    // record (a round's census takes time), and it is in done/ by now. Nothing to reclaim.
    if (run.ended === 'closed') return undefined;
    if (run.stopped === 'timed-out') {
      const budget = run.timeoutMs !== undefined ? ` after ${formatDuration(run.timeoutMs)}` : '';
      return spend('dead-worker', `worker timed out${budget} (the harness's timeout) and was stopped without closing the card${failureDetail(run)}`);
    }
    if (run.stopped === 'over-budget') {
      return spend('dead-worker', `worker was stopped over budget without closing the card${failureDetail(run)}`);
    }
    const code = run.exitCode === undefined || run.exitCode === null ? 'no exit code' : `exit code ${run.exitCode}`;
    return spend('dead-worker', `worker exited (${code}) without closing the card${failureDetail(run)}`);
  }
  if (run?.state === 'started' && run.alive === false) {
    return spend('dead-worker', `worker supervisor (pid ${run.pid ?? '?'}) is gone and the card is still claimed`);
  }
  // A lease is judged from every host, unlike a pid: the only way to see another host's death.
  if (run?.state === 'started' && run.leaseAgeMs !== undefined && run.leaseAgeMs > settings.leaseStaleAfterMs) {
    const where = run.host !== undefined ? `on ${run.host} ` : '';
    return spend(
      'dead-worker',
      `lease went stale: its supervisor ${where}(pid ${run.pid ?? '?'}) has not refreshed it for ${seconds(run.leaseAgeMs)} (lease_stale_after ${seconds(settings.leaseStaleAfterMs)}); its host is gone or cut off from the board`,
    );
  }
  if (run === undefined || run.state === 'abandoned') {
    if (run?.state === 'abandoned' || age >= settings.startGraceMs) {
      return neverStarted(`claimed ${formatDuration(age)} ago but its worker never started`);
    }
    return undefined;
  }
  if (age > settings.zombieAfterMs) {
    return spend('expired', `zombie: claimed by ${card.agent ?? 'unknown'} ${formatDuration(age)} ago (zombie_after ${formatDuration(settings.zombieAfterMs)})`);
  }
  return undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
