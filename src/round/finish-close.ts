import fs from 'node:fs/promises';
import path from 'node:path';
import type { PlannedReclaim } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError, moveNoReplace } from '../vault/move-card.js';
import type { RoundContext, Transition } from './context.js';

/**
 * Finish a close that crashed between its edit and its move (`kind: 'closed'`): the card in
 * `in-progress/` already carries `paths`, `closed` and its closing Record line, so the tick only
 * moves it to `done/` and says so in the Record. A worker finishing its own close at the same
 * moment wins or loses the exclusive move; either way the card ends in `done/` once.
 */
export async function finishClose(ctx: RoundContext, item: PlannedReclaim): Promise<Transition> {
  const log = ctx.logger.child({ card: item.card, kind: item.kind });
  const from = path.join(ctx.layout.inProgress, item.card);
  const to = path.join(ctx.layout.done, item.card);
  try {
    const current = parseFrontMatter(await fs.readFile(from, 'utf8')).data;
    if (typeof current.closed !== 'string' || current.closed.trim() === '') {
      return { kind: 'failed', card: item.card, detail: 'its `closed` was cleared since the census: left as it is' };
    }
    await fs.mkdir(ctx.layout.done, { recursive: true });
    await moveNoReplace(from, to);
  } catch (error) {
    const detail =
      error instanceof MoveClashError
        ? `cannot finish its close: done/${item.card} already exists (both files left untouched)`
        : (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'left in-progress/ before the tick could finish its close (its worker did)'
          : `close not finished: ${(error as Error).message}`;
    log.warn({ err: error }, detail);
    return { kind: 'failed', card: item.card, detail };
  }
  try {
    await editCard(to, { record: { actor: 'board', milestones: [`${item.reason}: moved to done/ (the close had been written, the move had not).`] } }, ctx.now);
  } catch (error) {
    log.error({ err: error }, 'moved to done/ but could not append to its Record');
  }
  log.warn({ reason: item.reason }, 'finished an interrupted close');
  return { kind: 'closed', card: item.card, detail: item.reason };
}
