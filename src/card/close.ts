import fs from 'node:fs/promises';
import path from 'node:path';
import { EMPTY_CLOSE_MILESTONE } from '../format/empty-close.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError, moveNoReplace } from '../vault/move-card.js';
import { actorFor, refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence, expectClaim } from './fence.js';
import { findCard, requireState } from './find-card.js';
import { existingVaultPath } from './vault-path.js';

export interface CloseArgs {
  readonly paths: readonly string[];
  /** The justification of a close with no paths (a legitimate exception). */
  readonly empty?: string;
}

/**
 * `board card close CARD --path P…`: `paths` filled, `closed` set, a closing Record line, then
 * the move to `done/`.
 *
 * Order: edit in `in-progress/` first, move second. A crash between the two leaves a card in
 * `in-progress/` with `closed` set; the next tick finishes the move (src/core/plan.ts
 * `finishing`) instead of reclaiming it as a zombie. The other order would leave a card in
 * `done/` without `paths` or `closed`: a false close that nothing could tell from a real one.
 */
export async function closeCard(ctx: CardContext, ref: string, args: CloseArgs): Promise<CardResult> {
  const empty = args.empty?.trim();
  if (args.empty !== undefined && empty === '') usage('--empty needs a justification: why is there legitimately nothing to show?');
  if (args.paths.length > 0 && empty !== undefined) usage('--path and --empty exclude each other: a close has outputs, or a justified empty result');
  if (args.paths.length === 0 && empty === undefined) {
    usage('a close needs --path for every output; a close with nothing to show needs --empty "justification" (an empty close without one is a false close)');
  }
  const found = await findCard(ctx.layout, ref, ctx.cwd);
  checkFence(ctx, found, 'close');
  requireState(found, ['in-progress'], 'close');

  const paths: string[] = [];
  for (const p of args.paths) {
    const rel = await existingVaultPath(ctx.layout, p, '--path');
    if (rel === 'KANBAN' || rel.startsWith('KANBAN/')) refuse(`--path ${rel}: an output never lives on the board itself`);
    if (!paths.includes(rel)) paths.push(rel);
  }

  const closed = ctx.now.toISOString();
  const milestones = empty !== undefined ? [`${EMPTY_CLOSE_MILESTONE} ${empty}`, 'Card closed.'] : [`closed with ${paths.join(', ')}.`, 'Card closed.'];
  const expect = expectClaim(ctx, found.name, 'close');
  await editCard(
    found.file,
    { fields: { paths, closed }, record: { actor: actorFor(ctx, found.card.agent), milestones }, ...(expect ? { expect } : {}) },
    ctx.now,
  );
  await fs.mkdir(ctx.layout.done, { recursive: true });
  const to = path.join(ctx.layout.done, found.name);
  try {
    await moveNoReplace(found.file, to);
  } catch (error) {
    // A tick may have finished this very close first (it saw `closed` set): that is success.
    if (!(await alreadyFinished(to, closed))) {
      if (error instanceof MoveClashError) refuse(`closed in in-progress/ but done/${found.name} already exists: both files left as they are for a human`);
      throw error;
    }
  }
  const shown = empty !== undefined ? 'with no outputs (justified)' : `with ${paths.join(', ')}`;
  return { verb: 'close', card: found.name, state: 'done', file: to, message: `closed ${found.name} ${shown} → done/${found.name}` };
}

async function alreadyFinished(doneFile: string, closed: string): Promise<boolean> {
  try {
    return parseFrontMatter(await fs.readFile(doneFile, 'utf8')).data.closed === closed;
  } catch {
    return false;
  }
}
