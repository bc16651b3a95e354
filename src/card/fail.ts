import path from 'node:path';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError, moveNoReplace } from '../vault/move-card.js';
import { actorFor, refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { findCard, requireState } from './find-card.js';

/**
 * `board card fail CARD "reason"`: back to `pending/` with `attempts` + 1, the claim fields
 * removed; blocked once `max_attempts` is reached.
 *
 * Order: move first, edit second (the reclaim's order). Once the card has left `in-progress/`, a
 * tick reclaiming it at the same moment finds nothing to move, so the attempt is never spent
 * twice and an edit never lands on a card someone else now holds. A crash between the two leaves
 * the card in `pending/` with its old claim stamp and its attempts unchanged: it is dispatched
 * again (the claim is re-stamped), losing only the count of this one failure, never the card.
 */
export async function failCard(ctx: CardContext, ref: string, reason: string): Promise<CardResult> {
  const why = reason.trim();
  if (why === '') usage('the reason is empty: say what failed, naming the object');
  const found = await findCard(ctx.layout, ref, ctx.cwd);
  checkFence(ctx, found, 'fail');
  requireState(found, ['in-progress'], 'fail');
  const to = path.join(ctx.layout.pending, found.name);
  await moveBack(found.file, to, found.name);
  const attempts = found.card.attempts + 1;
  const exhausted = attempts >= ctx.maxAttempts;
  const blocked = exhausted ? `${recordStamp(ctx.now)} failed: ${why}; attempts exhausted (${attempts} of max_attempts ${ctx.maxAttempts})` : undefined;
  const expect = expectClaim(ctx, found.name, 'fail');
  await editCard(
    to,
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
    ctx.now,
  );
  return {
    verb: 'fail',
    card: found.name,
    state: 'pending',
    file: to,
    message: `${found.name} back to pending/ (attempt ${attempts} of ${ctx.maxAttempts})${exhausted ? ', blocked: attempts exhausted' : ''}`,
  };
}

/** in-progress/ → pending/, never over a file already there. */
export async function moveBack(from: string, to: string, name: string): Promise<void> {
  try {
    await moveNoReplace(from, to);
  } catch (error) {
    if (error instanceof MoveClashError) refuse(`cannot return ${name}: pending/${name} already exists (both files left as they are)`);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') refuse(`${name} left in-progress/ just now (reclaimed?): nothing written`);
    throw error;
  }
}
