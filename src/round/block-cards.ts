import path from 'node:path';
import type { PlannedBlock } from '../core/types.js';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import type { RoundContext, Transition } from './context.js';

/** Census verdicts that block a card: `blocked: <date> <reason>` plus a Record line, in place. */
export async function blockCards(ctx: RoundContext, planned: readonly PlannedBlock[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned.filter((b) => b.new)) {
    const log = ctx.logger.child({ card: item.card });
    try {
      await editCard(
        path.join(ctx.layout.pending, item.card),
        {
          fields: { blocked: `${recordStamp(ctx.now)} ${item.reason}` },
          record: { actor: 'board', milestones: [`blocked: ${item.reason}. A human clears \`blocked\` to release it.`] },
        },
        ctx.now,
      );
      log.warn({ reason: item.reason }, 'card blocked');
      out.push({ kind: 'blocked', card: item.card, detail: item.reason });
    } catch (error) {
      log.error({ err: error }, 'could not block card');
      out.push({ kind: 'failed', card: item.card, detail: `could not block: ${(error as Error).message}` });
    }
  }
  return out;
}
