import { isBlocked } from '../core/census.js';
import { runIdFor } from '../core/zombies.js';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import { readRunRecord, requestStop } from '../vault/runs.js';
import { stopRecordedWorker } from '../worker/stop-recorded.js';
import { refuse, usage, type CardContext, type CardResult } from './context.js';
import { returnOrRefuse } from './fail.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';

/**
 * `board card cancel CARD --reason TEXT`: the human's way to stop a card. A claimed card's worker
 * is stopped (its supervisor is asked, and on this host its process group gets SIGTERM at once),
 * the card goes back to `pending/` with its claim cleared and its attempts untouched, and it is
 * blocked with the reason, so it waits for a human instead of going out again. A pending card is
 * only blocked. Refused to workers, like `unblock`.
 */
export async function cancelCard(ctx: CardContext, ref: string, reason: string): Promise<CardResult> {
  if (ctx.env.BOARD_CLAIM || ctx.env.BOARD_CARD) refuse("cancel is the human's verb: a worker fails or closes its own card instead");
  const why = reason.trim();
  if (why === '') usage('--reason is empty: say why the card is cancelled');
  return cardTransaction(ctx, ref, 'cancel', async (found, lock) => {
    requireState(found, ['pending', 'in-progress'], 'cancel');
    const blocked = `${recordStamp(ctx.now)} cancelled: ${why}`;
    if (found.state === 'pending') {
      if (isBlocked(found.card)) refuse(`${found.name} is already blocked (${String(found.card.blocked)}) and has no worker: nothing to cancel`);
      await editCard(found.file, { fields: { blocked }, record: { actor: 'human', milestones: [`cancelled: ${why}. Blocked until a human unblocks it.`] }, lock }, ctx.now);
      return { verb: 'cancel', card: found.name, state: 'pending', file: found.file, message: `cancelled pending/${found.name} (blocked: ${why})` };
    }
    const claimed = found.card.claimed;
    const runId = claimed ? runIdFor(found.name, claimed, found.card.attempts) : undefined;
    // The stop request goes first: the supervisor that sees its claim vanish learns why.
    if (runId) await requestStop(ctx.layout.kanban, runId, { reason: 'cancelled', at: ctx.now.toISOString(), detail: why });
    const { to } = await returnOrRefuse(lock, found, ctx, {
      fields: { blocked, agent: undefined, claimed: undefined, model: undefined },
      record: {
        actor: 'human',
        milestones: [
          `cancelled: ${why}.`,
          runId ? `its worker (run ${runId}) is stopped; returned to pending/ without spending an attempt, blocked until a human unblocks it.` : 'returned to pending/, blocked until a human unblocks it.',
        ],
      },
    });
    const record = runId ? await readRunRecord(ctx.layout.kanban, runId) : undefined;
    const signalled = (await stopRecordedWorker(record, 'SIGTERM')) !== undefined;
    return {
      verb: 'cancel',
      card: found.name,
      state: 'pending',
      file: to,
      message: `cancelled ${found.name}: back to pending/, blocked (${why}); ${signalled ? 'its worker was sent the stop at once' : 'its supervisor stops the worker within 15 s'}`,
    };
  });
}
