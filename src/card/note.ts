import { editCard } from '../vault/edit-card.js';
import { actorFor, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';

/** `board card note CARD "milestone"`: a progress milestone in the Record; nothing else changes. */
export async function noteCard(ctx: CardContext, ref: string, milestone: string): Promise<CardResult> {
  if (milestone.trim() === '') usage('the milestone is empty: say what is being done, naming the object');
  return cardTransaction(ctx, ref, 'note', async (found, lock) => {
    checkFence(ctx, found, 'note');
    requireState(found, ['pending', 'in-progress'], 'note');
    const expect = expectClaim(ctx, found.name, 'note');
    await editCard(found.file, { record: { actor: actorFor(ctx, found.card.agent), milestones: [milestone.trim()] }, lock, ...(expect ? { expect } : {}) }, ctx.now);
    return { verb: 'note', card: found.name, state: found.folder, file: found.file, message: `noted on ${found.folder}/${found.name}` };
  });
}
