import path from 'node:path';
import type { PlannedBlock } from '../core/types.js';
import { recordStamp } from '../format/record.js';
import { editCard } from '../vault/edit-card.js';
import { isBlocked } from '../core/census.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import type { Card } from '../schema/card.js';
import { failedTransition, underCardLock } from './card-step.js';
import type { RoundContext, Transition } from './context.js';

/** Census verdicts that block a card: `blocked: <date> <reason>` plus a Record line, in place. */
export async function blockCards(ctx: RoundContext, planned: readonly PlannedBlock[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned.filter((b) => b.new)) {
    const log = ctx.logger.child({ card: item.card });
    const done = await underCardLock(ctx, item.card, 'block', failedTransition(item.card), async (lock): Promise<Transition> => {
      try {
        await editCard(
          path.join(ctx.layout.pending, item.card),
          {
            fields: { blocked: `${recordStamp(ctx.now)} ${item.reason}` },
            record: { actor: 'board', milestones: [`blocked: ${item.reason}. A human clears \`blocked\` to release it.`] },
            lock,
            // Under the lock the card must still be unblocked: a verb may have blocked or moved it since the census.
            expect: (text) => {
              if (isBlocked({ blocked: parseFrontMatter(text).data.blocked } as Card)) throw new Error('it was blocked meanwhile');
            },
          },
          ctx.now,
        );
      } catch (error) {
        log.error({ err: error }, 'could not block card');
        return { kind: 'failed', card: item.card, detail: `could not block: ${(error as Error).message}` };
      }
      log.warn({ reason: item.reason }, 'card blocked');
      return { kind: 'blocked', card: item.card, detail: item.reason };
    });
    out.push(done);
  }
  return out;
}
