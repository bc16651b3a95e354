import fs from 'node:fs/promises';
import path from 'node:path';
import type { LoadedBoard } from '../config/load-config.js';
import { isSafeVaultPath } from '../core/census.js';
import { planRound } from '../core/plan.js';
import type { Card, DependentFact, Parsed, Plan, Profile, VaultSnapshot } from '../core/types.js';
import type { Logger } from '../log.js';
import { cardSchema } from '../schema/card.js';
import { profileSchema } from '../schema/profile.js';
import type { CensusCache } from '../vault/census-cache.js';
import { cardNameProblem, isCardFileName, type VaultLayout } from '../vault/layout.js';
import { assertRealFolders } from '../vault/real-folders.js';
import { acquireRoundLock, type LockOwner } from '../vault/lock.js';
import { readParsed } from '../vault/read-card.js';
import type { Transition } from './context.js';
import { assertVault, readDependentFacts, readInputFacts } from './read-snapshot.js';
import { executePlan, roundSettings } from './run-round.js';
import type { Spawner } from './spawner.js';

/**
 * `board watch`'s fast path: a round that plans only the cards a debounced batch of changes named
 * in `pending/`, under the same round lock, with the same pure planner and the same executor.
 *
 * Why it decides what a full round would. The planner judges every pending card on its own: its
 * census verdict (blocked, foreign, exhausted, waiting on an input), its match against the
 * profiles, its harness, model and keys depend on that card, the profiles and the config alone.
 * Cards meet only in step 4, where candidates are ordered (urgent, then oldest) and cut at
 * `max_dispatches_per_round`. The daemon takes this path only when (a) the batch holds nothing
 * but cards added or changed in `pending/` and closes landing in `done/` that no pending card's
 * inputs can name (none that could wake a director: see `neutralDoneLandings`), with no profile
 * or template change and no heartbeat, and (b) the last full round left no card waiting for
 * capacity and no claim that failed. Then every pending card outside the batch was judged by that
 * full round from the same profiles (re-validated here by stat) and was either dispatched or is
 * waiting for a reason of its own that no event since has touched: the batch's cards are the
 * only candidates a full round could dispatch now, so ordering them among themselves and cutting
 * at the same limit gives the same dispatches, the same profile, harness and model (the same
 * `planRound`), and the same claim and Record line (the same `executePlan`). A card whose
 * readiness changes without any watched event (an input file appearing elsewhere in the vault, a
 * config edit) is the heartbeat's to see, as it is for a board driven by `board tick` alone.
 *
 * Left to the next full round on purpose: scheduled instances (`templates: []`), zombies and
 * torn claims (`inProgress: []`), interrupted-move repairs, the temp-file sweep, `tick:ran`,
 * skipped periods and `last-round.json` (a partial plan's counts are not the board's). A plan
 * that leaves a capacity wait among the batch makes the daemon take the full path next.
 *
 * Anything uncertain gives `fallback` with the reason, before a single write: the lock held, a
 * card that is not a plain readable card, a card also in `in-progress/` or `done/` (a move under
 * way or a clash), a profile that vanished. Cheap by construction: `pending/` is never listed
 * (the watcher named the files), no other card is stat'ed; profiles are one `lstat` each, answered
 * by the census cache.
 */

export interface PartialRoundInput {
  readonly board: LoadedBoard;
  readonly layout: VaultLayout;
  readonly now: Date;
  readonly cache: CensusCache;
  /** Absolute paths of the PROFILE.md files the last full round read. */
  readonly profileFiles: readonly string[];
  /** File names in `pending/` the batch named. */
  readonly cards: readonly string[];
}

export type PartialRoundResult =
  | { readonly fallback: string }
  | {
      readonly fallback?: undefined;
      readonly plan: Plan;
      readonly transitions: Transition[];
      readonly tookOverFrom?: LockOwner;
      /** Input paths the batch's cards name that do not exist (yet). */
      readonly missingInputs: readonly string[];
    };

export async function runPartialRound(input: PartialRoundInput, logger: Logger, spawner: Spawner): Promise<PartialRoundResult> {
  const { board, layout, now } = input;
  await assertVault(layout);
  // A name the census would declare (too long), or linked folders, are the full round's to report.
  if (input.cards.some((n) => !isCardFileName(n) || n.includes('/') || cardNameProblem(n) !== undefined)) return { fallback: 'a name that is not a card' };
  if (await assertRealFolders(layout).then(() => false, () => true)) return { fallback: 'a board folder is not a real folder' };
  const names = [...new Set(input.cards)].sort();
  let compromised: Error | undefined;
  const lock = await acquireRoundLock(layout.kanban, (error) => {
    compromised = error;
    logger.error({ err: error }, 'round lock compromised');
  }).catch(() => undefined);
  if (!lock) return { fallback: 'cannot take the round lock' };
  if (!lock.acquired) return { fallback: 'the round lock is held' };
  const tookOverFrom = lock.tookOver?.from;
  try {
    const snapshot = await readPartialSnapshot(input, names);
    if (typeof snapshot === 'string') return { fallback: snapshot };
    const plan = planRound(snapshot, roundSettings(board), now);
    const cards = new Set(snapshot.pending.map((c) => c.file));
    const transitions = await executePlan({ board, layout, now, spawner, logger }, plan, { partialCards: cards });
    if (compromised) throw new Error(`the round lock was lost during the round: ${compromised.message}`);
    const missingInputs = [...snapshot.inputs].filter(([, fact]) => !fact.exists).map(([rel]) => rel);
    return { plan, transitions, missingInputs, ...(tookOverFrom ? { tookOverFrom } : {}) };
  } finally {
    await lock.release().catch((error: Error) => logger.error({ err: error }, 'could not release the round lock'));
  }
}

/** The snapshot a full round would hold, narrowed to the batch's cards; a string says why not. */
async function readPartialSnapshot(input: PartialRoundInput, names: readonly string[]): Promise<VaultSnapshot | string> {
  const { layout, cache } = input;
  const pending: Parsed<Card>[] = [];
  for (const name of names) {
    const parsed = await readParsed(path.join(layout.pending, name), name, cardSchema);
    // Gone since the event (claimed, moved, closed): not a card of pending/ any more, as a full
    // round that listed the folder now would not see it either.
    if (!parsed.ok && parsed.problems.every((p) => p.reason === 'vanished while being read')) continue;
    if (!parsed.ok) return `${name} cannot be read: the full round declares it`;
    // One name in two state folders is a move under way or a clash: the full round judges it.
    for (const dir of [layout.inProgress, layout.done]) {
      if (await present(path.join(dir, name))) return `${name} is also in ${path.basename(dir)}/`;
    }
    pending.push(parsed);
  }
  const profiles: Parsed<Profile>[] = [];
  for (const file of input.profileFiles) {
    const shown = layout.relative(file);
    const parsed = await cache.read(file, shown, profileSchema);
    if (!parsed.ok && parsed.problems.some((p) => p.reason === 'vanished while being read')) return `profile ${shown} vanished`;
    profiles.push(parsed);
  }
  return {
    profiles,
    templates: [],
    pending,
    inProgress: [],
    existingNames: new Set(names),
    inputs: await readInputFacts(layout, pending),
    runs: new Map(),
    dependents: await dependentFacts(layout, pending),
  };
}

async function present(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * The batch's children in done/ (one lstat each, no listing), so readSnapshot's own reader judges
 * them: a false close is a false close whichever round sees it.
 */
async function dependentFacts(layout: VaultLayout, pending: readonly Parsed<Card>[]): Promise<Map<string, DependentFact>> {
  const inDone = new Set<string>();
  for (const c of pending) {
    const value = c.ok ? c.value.inputs?.dependent_task : undefined;
    for (const rel of Array.isArray(value) ? value : value ? [value] : []) {
      if (!isSafeVaultPath(rel) || !rel.startsWith('KANBAN/done/')) continue;
      const name = rel.slice('KANBAN/done/'.length);
      if (name.includes('/') || !isCardFileName(name)) continue;
      const stat = await fs.lstat(path.join(layout.done, name)).catch(() => undefined);
      if (stat && !stat.isDirectory()) inDone.add(name);
    }
  }
  return readDependentFacts(layout, pending, inDone);
}
