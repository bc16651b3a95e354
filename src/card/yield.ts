import fs from 'node:fs/promises';
import path from 'node:path';
import { parseFrontMatter } from '../format/frontmatter.js';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import { actorFor, refuse, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { findCard, requireState } from './find-card.js';
import { returnOrRefuse } from './fail.js';
import { cardTransaction } from './transaction.js';
import { requireDirector } from './profile-of.js';

/** The slot a director sleeps on: the input gate the dispatcher already has. */
export const DEPENDENT_TASK = 'dependent_task';

/**
 * `board card yield CARD --until CHILD`: the director's yield. `inputs.dependent_task` becomes
 * the child's path in `done/`, the card returns to `pending/` **without** spending an attempt,
 * and the claim fields go (the next wake-up is a new claim, re-stamped by the dispatcher).
 *
 * Wiring self-check: the child must exist, name this card as its `director`, and the value is
 * built from its exact file name; after the write the card is re-read and the value compared
 * with the child's file name again. A mismatch before the write refuses with nothing written; a
 * mismatch after it blocks the card (fail loudly: a deaf director never sleeps in silence).
 *
 * Under the card's transition lock; edit first, move second, as `fail` (see there). A crash
 * between the two leaves a torn claim in `in-progress/` already carrying the gate: the next round
 * returns it to `pending/`, where it sleeps on its child as intended.
 */
export async function yieldCard(ctx: CardContext, ref: string, until: string): Promise<CardResult> {
  return cardTransaction(ctx, ref, 'yield', async (found, lock) => {
    checkFence(ctx, found, 'yield');
    requireState(found, ['in-progress'], 'yield');
    const director = await requireDirector(ctx.layout, found.card.agent, `cannot yield ${found.name}`);

    const child = await findCard(ctx.layout, until, ctx.cwd);
    if (child.name === found.name) refuse(`--until ${child.name}: a director cannot wait for its own card`);
    if (child.card.director !== found.name) {
      refuse(`wiring self-check failed: ${child.name} names ${JSON.stringify(child.card.director ?? null)} as its director, not ${found.name}; nothing written`);
    }
    if (child.state === 'archive') refuse(`--until ${child.name}: the child is archived (${child.folder}/), it will never appear in done/`);
    const value = `KANBAN/done/${child.name}`;
    if (path.posix.basename(value) !== child.name) refuse(`wiring self-check failed: ${value} does not end in ${child.name}; nothing written`);

    const expect = expectClaim(ctx, found.name, 'yield');
    const actor = actorFor(ctx, found.card.agent);
    const { to } = await returnOrRefuse(lock, found, ctx, {
      fields: { inputs: { ...(found.card.inputs ?? {}), [DEPENDENT_TASK]: value }, agent: undefined, claimed: undefined, model: undefined },
      record: {
        actor,
        milestones: [
          `yielded until its child ${child.name} (${child.folder}/, "${child.card.request}") closes: inputs.${DEPENDENT_TASK} = ${value}.`,
          `wiring self-check passed: the value names ${child.name} exactly.`,
          `returned to pending/ without spending an attempt (attempts ${found.card.attempts}).`,
        ],
      },
      ...(expect ? { expect } : {}),
    });

    // The self-check the standard asks of every director: re-read its own card and compare.
    const after = parseFrontMatter(await fs.readFile(to, 'utf8')).data;
    const written = (after.inputs as Record<string, unknown> | undefined)?.[DEPENDENT_TASK];
    if (typeof written !== 'string' || path.posix.basename(written) !== child.name) {
      const reason = `wiring self-check failed after writing: inputs.${DEPENDENT_TASK} is ${JSON.stringify(written ?? null)}, not ${value}`;
      await editCard(to, { fields: { blocked: `${recordStamp(ctx.now)} ${reason}` }, record: { actor: 'board', milestones: [`blocked: ${reason}.`] }, lock }, ctx.now);
      refuse(`${found.name}: ${reason}; the card is blocked`);
    }
    return {
      verb: 'yield',
      card: found.name,
      state: 'pending',
      file: to,
      message: `${director.name} yielded ${found.name} until ${value} (back to pending/, attempts unchanged)`,
    };
  });
}
