import { isBlocked } from '../core/census.js';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import { actorFor, refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';

/**
 * `board card block CARD "reason"`: `blocked: <date> <reason>`, the card stays where it is.
 * From a worker it is fenced like the other verbs: a stale worker cannot block a card another
 * worker now holds. An already blocked card keeps its first reason.
 */
export async function blockCard(ctx: CardContext, ref: string, reason: string): Promise<CardResult> {
  const why = reason.trim();
  if (why === '') usage('the reason is empty: say why the card cannot go on');
  return cardTransaction(ctx, ref, 'block', async (found, lock) => {
    checkFence(ctx, found, 'block');
    requireState(found, ['pending', 'in-progress'], 'block');
    if (isBlocked(found.card)) refuse(`${found.name} is already blocked: ${String(found.card.blocked)}`);
    const expect = expectClaim(ctx, found.name, 'block');
    await editCard(
      found.file,
      {
        fields: { blocked: `${recordStamp(ctx.now)} ${why}` },
        record: { actor: actorFor(ctx, found.card.agent), milestones: [`blocked: ${why}. A human clears \`blocked\` (board unblock) to release it.`] },
        lock,
        ...(expect ? { expect } : {}),
      },
      ctx.now,
    );
    return { verb: 'block', card: found.name, state: found.folder, file: found.file, message: `blocked ${found.folder}/${found.name}: ${why}` };
  });
}
