import { isBlocked } from '../core/census.js';
import { editCard } from '../vault/edit-card.js';
import { refuse, type CardContext, type CardResult } from './context.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';

/**
 * `board unblock CARD`: the human's way to clear `blocked`. A card blocked because its attempts
 * ran out would be blocked again by the next census, so its attempts are reset to 0 as well (and
 * the Record says so). Refused to a worker (BOARD_CLAIM or BOARD_CARD set, as the board gives
 * every worker and replay): only a human clears a block.
 */
export async function unblockCard(ctx: CardContext, ref: string): Promise<CardResult> {
  if (ctx.env.BOARD_CLAIM || ctx.env.BOARD_CARD) refuse('unblock is the human\'s verb: a worker never clears a block');
  return cardTransaction(ctx, ref, 'unblock', async (found, lock) => {
    requireState(found, ['pending', 'in-progress'], 'unblock');
    if (!isBlocked(found.card)) refuse(`${found.name} is not blocked`);
    const reset = found.card.attempts >= ctx.maxAttempts;
    await editCard(
      found.file,
      {
        fields: { blocked: undefined, ...(reset ? { attempts: 0 } : {}) },
        record: {
          actor: 'human',
          milestones: [
            `unblocked (was: ${String(found.card.blocked)}).`,
            ...(reset ? [`attempts reset from ${found.card.attempts} to 0 (max_attempts ${ctx.maxAttempts}).`] : []),
          ],
        },
        lock,
      },
      ctx.now,
    );
    return { verb: 'unblock', card: found.name, state: found.folder, file: found.file, message: `unblocked ${found.folder}/${found.name}${reset ? ' (attempts reset to 0)' : ''}` };
  });
}
