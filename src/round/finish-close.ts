import fs from 'node:fs/promises';
import path from 'node:path';
import type { PlannedReclaim } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { moveCardLocked } from '../vault/card-lock.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError } from '../vault/move-card.js';
import { failedTransition, underCardLock } from './card-step.js';
import type { RoundContext, Transition } from './context.js';

/**
 * Finish a close that died between its edit and its move (`kind: 'closed'`): the card in
 * `in-progress/` carries `paths`, `closed` and its closing Record line, and its stale lock holds
 * the same `closed` as the close's intent. The tick takes the lock over (carrying that intent
 * on, should it die too), moves the card to `done/` and says so in the Record.
 */
export async function finishClose(ctx: RoundContext, item: PlannedReclaim): Promise<Transition> {
  const log = ctx.logger.child({ card: item.card, kind: item.kind });
  const from = path.join(ctx.layout.inProgress, item.card);
  const to = path.join(ctx.layout.done, item.card);
  const failed = failedTransition(item.card);
  if (item.closed === undefined) return failed('no close to finish');
  const closed = item.closed;
  return underCardLock(
    ctx,
    item.card,
    'close',
    failed,
    async (lock) => {
      try {
        const current = parseFrontMatter(await fs.readFile(from, 'utf8')).data;
        if (current.closed !== closed) return failed('its `closed` changed since the census: left as it is');
        await moveCardLocked(lock, from, to);
      } catch (error) {
        const detail =
          error instanceof MoveClashError
            ? `cannot finish its close: done/${item.card} already exists (both files left untouched)`
            : (error as NodeJS.ErrnoException).code === 'ENOENT'
              ? 'left in-progress/ before the tick could finish its close (its worker did)'
              : `close not finished: ${(error as Error).message}`;
        log.warn({ err: error }, detail);
        return failed(detail);
      }
      try {
        await editCard(to, { record: { actor: 'board', milestones: [`${item.reason}: moved to done/ (the close had been written, the move had not).`] }, lock }, ctx.now);
      } catch (error) {
        log.error({ err: error }, 'moved to done/ but could not append to its Record');
      }
      log.warn({ reason: item.reason }, 'finished an interrupted close');
      return { kind: 'closed', card: item.card, detail: item.reason };
    },
    { closed },
  );
}
