import { actorFor, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { requireState } from './find-card.js';
import { DEPENDENT_TASK, verifyWiring, wiringTo } from './wiring.js';
import { returnOrRefuse } from './fail.js';
import { cardTransaction } from './transaction.js';
import { requireDirector } from './profile-of.js';

export { DEPENDENT_TASK } from './wiring.js';

/**
 * `board card yield CARD --until CHILD`: the director's yield. `inputs.dependent_task` becomes
 * the child's path in `done/`, the card returns to `pending/` **without** spending an attempt,
 * and the claim fields go (the next wake-up is a new claim, re-stamped by the dispatcher).
 *
 * Wiring self-check: the child must exist, name this card as its `director`, and the value is
 * built from its exact file name; after the write the card is re-read and the value compared
 * with the child's file name again. A mismatch before the write refuses with nothing written; a
 * mismatch after it blocks the card (fail loudly: a deaf director never sleeps in silence).
 *
 * Under the card's transition lock; edit first, move second, as `fail` (see there). A crash
 * between the two leaves a torn claim in `in-progress/` already carrying the gate: the next round
 * returns it to `pending/`, where it sleeps on its child as intended.
 */
export async function yieldCard(ctx: CardContext, ref: string, until: string): Promise<CardResult> {
  return cardTransaction(ctx, ref, 'yield', async (found, lock) => {
    checkFence(ctx, found, 'yield');
    requireState(found, ['in-progress'], 'yield');
    const director = await requireDirector(ctx.layout, found.card.agent, `cannot yield ${found.name}`);

    const { child, value } = await wiringTo(ctx, found, until, 'yield');

    const expect = expectClaim(ctx, found.name, 'yield');
    const actor = actorFor(ctx, found.card.agent);
    const { to } = await returnOrRefuse(lock, found, ctx, {
      fields: { inputs: { ...(found.card.inputs ?? {}), [DEPENDENT_TASK]: value }, agent: undefined, claimed: undefined, model: undefined },
      record: {
        actor,
        milestones: [
          `yielded until its child ${child.name} (${child.folder}/, "${child.card.request}") closes: inputs.${DEPENDENT_TASK} = ${value}.`,
          `wiring self-check passed: the value names ${child.name} exactly.`,
          `returned to pending/ without spending an attempt (attempts ${found.card.attempts}).`,
        ],
      },
      ...(expect ? { expect } : {}),
    });

    // The self-check the standard asks of every director: re-read its own card and compare.
    await verifyWiring(ctx, to, found.name, child.name, value, lock);
    return {
      verb: 'yield',
      card: found.name,
      state: 'pending',
      file: to,
      message: `${director.name} yielded ${found.name} until ${value} (back to pending/, attempts unchanged)`,
    };
  });
}
