import type { ListedTemps, Plan } from '../core/types.js';
import { blockCards } from './block-cards.js';
import type { RoundContext, Transition } from './context.js';
import { dispatchCards } from './dispatch-cards.js';
import { roundJournalOf, tickJournal } from './journal-round.js';
import { reclaimZombies } from './reclaim-zombies.js';
import { repairDoubleLinks } from './repair-double-links.js';
import { sweepTempFiles } from './sweep-temp-files.js';
import { sweepCardLocks } from '../vault/card-lock.js';
import { writeScheduled } from './write-scheduled.js';

// Planning is its own module, so `dry-run` and `status` load none of the execution steps.
export { planFromVault, roundSettings, START_GRACE_MS } from './plan-from-vault.js';

export interface ExecuteOptions {
  /**
   * `board watch`'s partial round (see src/round/partial-round.ts): the plan covers only these
   * pending cards. The round-wide bookkeeping is left to the next full round: no `tick:ran` (a
   * partial round writes no scheduled instance, so it must not count as a tick for
   * `schedule:skipped`), no skipped periods, no temp sweep; the census verdicts of these cards
   * are merged into `verdicts.json` instead of replacing it.
   */
  readonly partialCards?: ReadonlySet<string>;
  /** What the round's census listed: the temp sweep does not list those folders again. */
  readonly listedTemps?: ListedTemps;
}

/** Execute a plan in the heartbeat's order: scheduled, blocks, dispatch, then zombies. */
export async function executePlan(ctx: RoundContext, plan: Plan, options: ExecuteOptions = {}): Promise<Transition[]> {
  const round: RoundContext = ctx.journal ? ctx : { ...ctx, journal: tickJournal(ctx) };
  const journal = roundJournalOf(round);
  const partial = options.partialCards;
  if (!partial) {
    await journal.skippedPeriods();
    await journal.tick(plan);
  }
  const transitions: Transition[] = [];
  // Each step's transitions are journaled before the next step runs: a card scheduled and
  // dispatched in one round gets its claim caused by its creation.
  const run = async (step: Promise<Transition[]>) => {
    const done = await step;
    await journal.transitions(done);
    transitions.push(...done);
  };
  await run(repairDoubleLinks(round, plan.repairs ?? []));
  await run(writeScheduled(round, plan.scheduled));
  await run(blockCards(round, plan.blocked));
  await run(dispatchCards(round, plan.dispatch));
  await run(reclaimZombies(round, plan.zombies));
  // Temp files a crash left behind (older than an hour): removed and logged, never a transition.
  if (partial) {
    await journal.census(plan, partial);
    return transitions;
  }
  await sweepTempFiles(round, options.listedTemps ? { listed: options.listedTemps } : {});
  // Card locks that dead holders left (none of them a close still to finish), and old tombstones.
  for (const name of await sweepCardLocks(round.layout.kanban, Date.now()).catch(() => [])) round.logger.info({ lock: `KANBAN/.locks/${name}` }, 'removed a card lock left by a dead holder');
  await journal.census(plan);
  return transitions;
}
