import path from 'node:path';
import { moveCardLocked, pathExists, type HeldCardLock } from './card-lock.js';
import { crashPoint } from './crash-seam.js';
import { editCard, type CardEdit } from './edit-card.js';
import { MoveClashError } from './move-card.js';

/**
 * in-progress/ → pending/ (fail, yield, cancel, reclaim), under the card's lock. The edit comes
 * first, in `in-progress/`: it clears the claim fields and writes the new count in the same
 * write. A crash or an error (full disk, read-only) after the edit and before the move leaves a
 * card in `in-progress/` without `claimed`: a torn claim, which the next round returns without
 * touching `attempts` again, so the count is right whatever step failed; an error in the edit
 * itself leaves the card as it was. (Moving first, as before, could leave a card in `pending/`
 * with its old claim and its attempt unspent.) The destination is checked before anything is
 * written, so a name clash refuses with nothing changed.
 */
export async function returnToPending(lock: HeldCardLock, from: string, pendingDir: string, edit: Omit<CardEdit, 'lock'>, now: Date): Promise<{ to: string; text: string }> {
  const to = path.join(pendingDir, path.basename(from));
  if (await pathExists(to)) throw new MoveClashError(from, to);
  const text = await editCard(from, { ...edit, lock }, now);
  crashPoint('return:edited');
  await moveCardLocked(lock, from, to);
  return { to, text };
}
