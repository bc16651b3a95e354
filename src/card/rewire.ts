import { refuse, type CardContext, type CardResult } from './context.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';
import { DEPENDENT_TASK, verifyWiring, wiringTo } from './wiring.js';
import { editCard } from '../vault/edit-card.js';

/**
 * `board card rewire CARD --until CHILD`: a human repairs a sleeping director whose
 * `inputs.dependent_task` went deaf (a hand edit naming no card) or circular (directors waiting on
 * each other). The same wiring self-check as `yield`: the child must name CARD as its director,
 * the value is built from its exact file name, and the card is re-read after the write. Only a
 * pending card: an in-progress director is awake and yields for itself. Under the card's lock;
 * `blocked`, `attempts` and everything else stay as they are.
 */
export async function rewireCard(ctx: CardContext, ref: string, until: string): Promise<CardResult> {
  if (ctx.env.BOARD_CLAIM || ctx.env.BOARD_CARD) refuse("rewire is a human's verb: a director wires itself with `board card yield --until`");
  return cardTransaction(ctx, ref, 'rewire', async (found, lock) => {
    requireState(found, ['pending'], 'rewire');
    const { child, value } = await wiringTo(ctx, found, until, 'rewire');
    const inputs = found.card.inputs ?? {};
    const before = inputs[DEPENDENT_TASK];
    if (before === value) refuse(`${found.name} already waits on ${value}: nothing to rewire`);
    const was = before === undefined ? 'unset' : Array.isArray(before) ? before.join(', ') : before;
    await editCard(
      found.file,
      {
        fields: { inputs: { ...inputs, [DEPENDENT_TASK]: value } },
        record: {
          actor: 'human',
          milestones: [
            `rewired: inputs.${DEPENDENT_TASK} was ${was}, now ${value} (its child ${child.name}, in ${child.folder}/).`,
            `wiring self-check passed: the value names ${child.name} exactly.`,
          ],
        },
        lock,
      },
      ctx.now,
    );
    await verifyWiring(ctx, found.file, found.name, child.name, value, lock);
    const wakes = child.state === 'done' ? 'its child is in done/: the next round wakes it' : `it sleeps until ${child.name} closes (now in ${child.folder}/)`;
    return { verb: 'rewire', card: found.name, state: 'pending', file: found.file, message: `rewired ${found.name}: inputs.${DEPENDENT_TASK} = ${value}; ${wakes}` };
  });
}
