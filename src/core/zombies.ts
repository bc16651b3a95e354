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
 * - expired: claimed longer than `zombie_after`: back, attempt + 1;
 * - closed: `closed` is set (a close that crashed between its edit and its move): on to done/.
 * An attempt that reaches `max_attempts` sends the card back blocked.
 */

export interface ZombieSettings {
  readonly zombieAfterMs: number;
  readonly startGraceMs: number;
  readonly maxAttempts: number;
}

/** The run id a claim's supervisor records itself under: derivable from the card alone. */
export function runIdFor(cardFile: string, claimed: string, attempts: number): string {
  const stem = cardFile.replace(/\.md$/, '');
  return `${stem}.${claimed.replace(/[^0-9A-Za-z]/g, '')}.a${attempts}`;
}

export function findZombie(
  cardFile: string,
  card: Card,
  run: RunFact | undefined,
  now: Date,
  settings: ZombieSettings,
  stamp: string,
): PlannedReclaim | undefined {
  if (isBlocked(card)) return undefined;
  // `board card close` edits first and moves second: a crash between the two leaves a closed card
  // here. Its work is done and recorded, so the move is finished, never reclaimed as a zombie.
  if (typeof card.closed === 'string' && card.closed.trim() !== '') {
    return {
      card: cardFile,
      kind: 'closed',
      reason: `closed ${card.closed} by ${card.agent ?? 'its worker'} but still in in-progress/: finishing the move to done/`,
      attempts: card.attempts,
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
    return {
      card: cardFile,
      kind,
      reason,
      attempts,
      claim: claimed,
      runId,
      ...(exhausted ? { block: `${stamp} ${reason}; attempts exhausted (${attempts} of max_attempts ${settings.maxAttempts})` } : {}),
    };
  };
  if (run?.state === 'exited') {
    const code = run.exitCode === undefined || run.exitCode === null ? 'no exit code' : `exit code ${run.exitCode}`;
    return spend('dead-worker', `worker exited (${code}) without closing the card`);
  }
  if (run?.state === 'started' && run.alive === false) {
    return spend('dead-worker', `worker supervisor (pid ${run.pid ?? '?'}) is gone and the card is still claimed`);
  }
  if (run === undefined || run.state === 'abandoned') {
    if (run?.state === 'abandoned' || age >= settings.startGraceMs) {
      return {
        card: cardFile,
        kind: 'never-started',
        reason: `claimed ${formatDuration(age)} ago but its worker never started`,
        attempts: card.attempts,
        claim: claimed,
        runId,
      };
    }
    return undefined;
  }
  if (age > settings.zombieAfterMs) {
    return spend('expired', `zombie: claimed by ${card.agent ?? 'unknown'} ${formatDuration(age)} ago (zombie_after ${formatDuration(settings.zombieAfterMs)})`);
  }
  return undefined;
}
