import { recordStamp } from '../format/record.js';
import type { HeldCardLock } from '../vault/card-lock.js';
import type { CardEdit } from '../vault/edit-card.js';
import { MoveClashError } from '../vault/move-card.js';
import { returnToPending } from '../vault/return-card.js';
import { actorFor, refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { requireState, type FoundCard } from './find-card.js';
import { cardTransaction } from './transaction.js';

/**
 * `board card fail CARD "reason"`: back to `pending/` with `attempts` + 1, the claim fields
 * removed; blocked once `max_attempts` is reached.
 *
 * Under the card's transition lock, so a racing close, reclaim or second fail waits and is then
 * refused by what it finds. Edit first, move second (src/vault/return-card.ts says why): the
 * count is never lost, whichever step a crash or a full disk interrupts.
 */
export async function failCard(ctx: CardContext, ref: string, reason: string): Promise<CardResult> {
  const why = reason.trim();
  if (why === '') usage('the reason is empty: say what failed, naming the object');
  return cardTransaction(ctx, ref, 'fail', async (found, lock) => {
    checkFence(ctx, found, 'fail');
    requireState(found, ['in-progress'], 'fail');
    const attempts = found.card.attempts + 1;
    const exhausted = attempts >= ctx.maxAttempts;
    const blocked = exhausted ? `${recordStamp(ctx.now)} failed: ${why}; attempts exhausted (${attempts} of max_attempts ${ctx.maxAttempts})` : undefined;
    const expect = expectClaim(ctx, found.name, 'fail');
    const { to } = await returnOrRefuse(
      lock,
      found,
      ctx,
      {
        fields: { attempts, agent: undefined, claimed: undefined, model: undefined, ...(blocked ? { blocked } : {}) },
        record: {
          actor: actorFor(ctx, found.card.agent),
          milestones: [
            `failed: ${why}`,
            `returned to pending/ (attempt ${attempts} of ${ctx.maxAttempts}).`,
            ...(exhausted ? ['blocked: attempts exhausted. A human clears `blocked` (board unblock) to release it.'] : []),
          ],
        },
        ...(expect ? { expect } : {}),
      },
    );
    return {
      verb: 'fail',
      card: found.name,
      state: 'pending',
      file: to,
      message: `${found.name} back to pending/ (attempt ${attempts} of ${ctx.maxAttempts})${exhausted ? ', blocked: attempts exhausted' : ''}`,
    };
  });
}

/** The verbs' in-progress/ → pending/ (see returnToPending), a name clash refused with nothing written. */
export async function returnOrRefuse(lock: HeldCardLock, found: FoundCard, ctx: CardContext, edit: Omit<CardEdit, 'lock'>): Promise<{ to: string; text: string }> {
  try {
    return await returnToPending(lock, found.file, ctx.layout.pending, edit, ctx.now);
  } catch (error) {
    if (error instanceof MoveClashError) refuse(`cannot return ${found.name}: pending/${found.name} already exists (both files left as they are)`);
    throw error;
  }
}
