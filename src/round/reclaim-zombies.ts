import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PlannedReclaim } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError, moveNoReplace } from '../vault/move-card.js';
import { createRunRecordExclusive, readRunRecord } from '../vault/runs.js';
import { crashPoint } from '../vault/crash-seam.js';
import type { RoundContext, Transition } from './context.js';
import { finishClose } from './finish-close.js';

/**
 * Step 5: return reclaimed claims to `pending/`. The card is moved first and edited after, so a
 * worker closing it at the same moment either wins (the move finds nothing) or finds its claim
 * gone (fencing); an edit never resurrects a card that has left `in-progress/`.
 */
export async function reclaimZombies(ctx: RoundContext, planned: readonly PlannedReclaim[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned) out.push(await reclaimOne(ctx, item));
  return out;
}

async function reclaimOne(ctx: RoundContext, item: PlannedReclaim): Promise<Transition> {
  if (item.kind === 'closed') return finishClose(ctx, item);
  const log = ctx.logger.child({ card: item.card, kind: item.kind });
  const from = path.join(ctx.layout.inProgress, item.card);
  const to = path.join(ctx.layout.pending, item.card);
  try {
    if (item.kind === 'never-started' && item.runId && item.claim) {
      // Decide against a supervisor that may be starting right now: only one of us creates the record.
      const gaveUp = await createRunRecordExclusive(ctx.layout.kanban, {
        runId: item.runId,
        card: item.card,
        claim: item.claim,
        state: 'abandoned',
        host: os.hostname(),
        end: ctx.now.toISOString(),
      });
      if (!gaveUp) {
        const existing = await readRunRecord(ctx.layout.kanban, item.runId);
        if (existing?.state !== 'abandoned') return { kind: 'failed', card: item.card, detail: 'its worker started just now: left claimed' };
      }
    }
    // Fencing: reclaim only the claim we planned on, not a newer one.
    const current = parseFrontMatter(await fs.readFile(from, 'utf8')).data;
    if (item.claim !== undefined && current.claimed !== item.claim) {
      return { kind: 'failed', card: item.card, detail: 'its claim changed since the census: left as it is' };
    }
    await moveNoReplace(from, to);
  } catch (error) {
    const detail =
      error instanceof MoveClashError
        ? `cannot return: pending/${item.card} already exists (both files left untouched)`
        : (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'left in-progress/ before it could be reclaimed (closed by its worker?)'
          : `not reclaimed: ${(error as Error).message}`;
    log.warn({ err: error }, detail);
    return { kind: 'failed', card: item.card, detail };
  }
  crashPoint('reclaim:moved');

  const spent = item.kind === 'expired' || item.kind === 'dead-worker';
  const milestones = [
    `${item.reason}; returned to pending/ ${spent ? `(attempt ${item.attempts} of ${ctx.board.config.max_attempts})` : 'without spending an attempt'}.`,
    ...(item.block ? ['blocked: attempts exhausted. A human clears `blocked` to release it.'] : []),
  ];
  try {
    await editCard(
      to,
      {
        fields: {
          attempts: item.attempts,
          agent: undefined,
          claimed: undefined,
          model: undefined,
          ...(item.block ? { blocked: item.block } : {}),
        },
        record: { actor: 'board', milestones },
      },
      ctx.now,
    );
  } catch (error) {
    log.error({ err: error }, 'returned to pending/ but could not update the card');
    return { kind: 'failed', card: item.card, detail: `returned to pending/ but not updated: ${(error as Error).message}` };
  }
  log.warn({ reason: item.reason, attempts: item.attempts, blocked: Boolean(item.block) }, spent ? 'card reclaimed' : 'claim returned');
  return { kind: spent ? 'reclaimed' : 'returned', card: item.card, ...(item.runId ? { runId: item.runId } : {}), detail: item.reason };
}
