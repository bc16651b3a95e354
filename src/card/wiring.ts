import fs from 'node:fs/promises';
import path from 'node:path';
import { parseFrontMatter } from '../format/frontmatter.js';
import { recordStamp } from '../format/record.js';
import type { HeldCardLock } from '../vault/card-lock.js';
import { editCard } from '../vault/edit-card.js';
import { refuse, type CardContext } from './context.js';
import { findCard, type FoundCard } from './find-card.js';

/** The slot a director sleeps on: the input gate the dispatcher already has. */
export const DEPENDENT_TASK = 'dependent_task';

/**
 * The wiring self-check's first half (the standard's, for every director): the child must exist,
 * name `director` as its director and not be archived, and the value is built from its exact
 * file name. Refuses with nothing written otherwise.
 */
export async function wiringTo(ctx: CardContext, director: FoundCard, until: string, verb: string): Promise<{ child: FoundCard; value: string }> {
  const child = await findCard(ctx.layout, until, ctx.cwd);
  if (child.name === director.name) refuse(`--until ${child.name}: a director cannot wait for its own card`);
  if (child.card.director !== director.name) {
    refuse(`wiring self-check failed: ${child.name} names ${JSON.stringify(child.card.director ?? null)} as its director, not ${director.name}; nothing written`);
  }
  if (child.state === 'archive') refuse(`--until ${child.name}: the child is archived (${child.folder}/), it will never appear in done/; nothing to ${verb} on`);
  const value = `KANBAN/done/${child.name}`;
  if (path.posix.basename(value) !== child.name) refuse(`wiring self-check failed: ${value} does not end in ${child.name}; nothing written`);
  return { child, value };
}

/**
 * The second half: re-read the card as written and compare the value with the child's file name
 * again. A mismatch blocks the card (fail loudly: a deaf director never sleeps in silence).
 */
export async function verifyWiring(ctx: CardContext, file: string, cardName: string, child: string, value: string, lock: HeldCardLock): Promise<void> {
  const after = parseFrontMatter(await fs.readFile(file, 'utf8')).data;
  const written = (after.inputs as Record<string, unknown> | undefined)?.[DEPENDENT_TASK];
  if (typeof written === 'string' && path.posix.basename(written) === child) return;
  const reason = `wiring self-check failed after writing: inputs.${DEPENDENT_TASK} is ${JSON.stringify(written ?? null)}, not ${value}`;
  await editCard(file, { fields: { blocked: `${recordStamp(ctx.now)} ${reason}` }, record: { actor: 'board', milestones: [`blocked: ${reason}.`] }, lock }, ctx.now);
  refuse(`${cardName}: ${reason}; the card is blocked`);
}
