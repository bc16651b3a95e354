import fs from 'node:fs/promises';
import { setFields } from '../format/frontmatter.js';
import { appendRecord } from '../format/record.js';
import type { CardField } from '../schema/card.js';
import { writeFileAtomic } from './atomic-write.js';
import type { HeldCardLock } from './card-lock.js';

export interface CardEdit {
  /** Fields to set; `undefined` removes the field. Only the standard's card fields. */
  readonly fields?: Partial<Record<CardField, unknown>>;
  /** A Record entry: the actor and its milestones. */
  readonly record?: { readonly actor: string; readonly milestones: readonly string[] };
  /** Refuse (throw) unless the card as read passes this check: fencing against stale writers. */
  readonly expect?: (text: string) => void;
  /**
   * The card's transition lock, which every change of a card holds (docs/transitions.md): re-checked
   * once the new text is written beside the card, right before the rename, so a holder taken over
   * as stale writes nothing.
   */
  readonly lock: HeldCardLock;
}

/**
 * Edit a card in place: re-read it, change only the named fields' lines, append to the Record,
 * and replace it through a temp file and a rename. Returns the new text.
 */
export async function editCard(file: string, edit: CardEdit, now: Date): Promise<string> {
  const before = await fs.readFile(file, 'utf8');
  edit.expect?.(before);
  let text = edit.fields ? setFields(before, edit.fields) : before;
  if (edit.record) text = appendRecord(text, now, edit.record.actor, edit.record.milestones);
  // The lock is checked once the new text is on disk beside the card, just before the rename
  // (writeFileAtomic): a round frozen while it wrote (SIGSTOP, a suspended VM) past the lock's
  // staleness must not stamp a card another host has claimed since (the multi-host suite's frozen
  // host did, once: its check came before the pause).
  await writeFileAtomic(file, text, () => edit.lock.assertHeld());
  return text;
}
