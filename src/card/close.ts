import path from 'node:path';
import { EMPTY_CLOSE_MILESTONE } from '../format/empty-close.js';
import { moveCardLocked, pathExists } from '../vault/card-lock.js';
import { crashPoint } from '../vault/crash-seam.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError } from '../vault/move-card.js';
import { actorFor, refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { requireState } from './find-card.js';
import { cardTransaction } from './transaction.js';
import { existingVaultPath, onTheBoard } from './vault-path.js';

export interface CloseArgs {
  readonly paths: readonly string[];
  /** The justification of a close with no paths (a legitimate exception). */
  readonly empty?: string;
}

/**
 * `board card close CARD --path P…`: `paths` filled, `closed` set, a closing Record line, then
 * the move to `done/`.
 *
 * Under the card's transition lock: edit in `in-progress/` first, move second. A crash between
 * the two leaves a card in `in-progress/` with `closed` set and the lock holding this close's
 * intent; the next tick finishes the move instead of reclaiming it as a zombie. The other order
 * would leave a card in `done/` without `paths` or `closed`: a false close nothing could tell
 * from a real one.
 */
export async function closeCard(ctx: CardContext, ref: string, args: CloseArgs): Promise<CardResult> {
  const empty = args.empty?.trim();
  if (args.empty !== undefined && empty === '') usage('--empty needs a justification: why is there legitimately nothing to show?');
  if (args.paths.length > 0 && empty !== undefined) usage('--path and --empty exclude each other: a close has outputs, or a justified empty result');
  if (args.paths.length === 0 && empty === undefined) {
    usage('a close needs --path for every output; a close with nothing to show needs --empty "justification" (an empty close without one is a false close)');
  }
  const closed = ctx.now.toISOString();
  // The lock carries the close's outcome before the card is edited: a close that dies between its
  // edit and its move leaves that intent, the only thing a round trusts to finish it.
  return cardTransaction(
    ctx,
    ref,
    'close',
    async (found, lock) => {
      checkFence(ctx, found, 'close');
      requireState(found, ['in-progress'], 'close');

      const paths: string[] = [];
      for (const p of args.paths) {
        const rel = await existingVaultPath(ctx.layout, p, '--path');
        if (await onTheBoard(ctx.layout, rel)) refuse(`--path ${rel}: an output never lives on the board itself (KANBAN/, links resolved)`);
        if (!paths.includes(rel)) paths.push(rel);
      }
      const to = path.join(ctx.layout.done, found.name);
      if (await pathExists(to)) refuse(`cannot close ${found.name}: done/${found.name} already exists (both files left as they are for a human)`);

      const milestones = empty !== undefined ? [`${EMPTY_CLOSE_MILESTONE} ${empty}`, 'Card closed.'] : [`closed with ${paths.join(', ')}.`, 'Card closed.'];
      const expect = expectClaim(ctx, found.name, 'close');
      await editCard(
        found.file,
        { fields: { paths, closed }, record: { actor: actorFor(ctx, found.card.agent), milestones }, lock, ...(expect ? { expect } : {}) },
        ctx.now,
      );
      crashPoint('close:edited');
      try {
        await moveCardLocked(lock, found.file, to);
      } catch (error) {
        if (error instanceof MoveClashError) refuse(`closed in in-progress/ but done/${found.name} appeared meanwhile: both files left as they are for a human`);
        throw error;
      }
      const shown = empty !== undefined ? 'with no outputs (justified)' : `with ${paths.join(', ')}`;
      return { verb: 'close', card: found.name, state: 'done', file: to, message: `closed ${found.name} ${shown} → done/${found.name}` };
    },
    { closed },
  );
}
