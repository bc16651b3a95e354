import fs from 'node:fs/promises';
import path from 'node:path';
import type { PlannedRepair } from '../core/types.js';
import { DOUBLE_LINK_SETTLE_MS, sameFile } from './read-snapshot.js';
import type { RoundContext, Transition } from './context.js';

/**
 * Before dispatch: undo moves interrupted between their link and their unlink by dropping the
 * extra name. Checked again right before the unlink (still one file, still settled): unlinking
 * one of two names of one inode loses nothing, and a name that is no longer a second link of the
 * kept file is never touched.
 */
export async function repairDoubleLinks(ctx: RoundContext, planned: readonly PlannedRepair[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned) {
    const log = ctx.logger.child({ card: item.card, repair: `${item.drop}->${item.keep}` });
    const dropped = path.join(ctx.layout.kanban, item.drop, item.card);
    const kept = path.join(ctx.layout.kanban, item.keep, item.card);
    const same = await sameFile(dropped, kept);
    if (!same || Date.now() - same.ctimeMs < DOUBLE_LINK_SETTLE_MS) {
      out.push({ kind: 'failed', card: item.card, detail: `not repaired: ${item.drop}/ and ${item.keep}/ are no longer one settled file` });
      continue;
    }
    try {
      await fs.unlink(dropped);
    } catch (error) {
      log.warn({ err: error }, 'could not drop the extra name');
      out.push({ kind: 'failed', card: item.card, detail: `not repaired: ${(error as Error).message}` });
      continue;
    }
    log.warn({ reason: item.reason }, 'repaired an interrupted move');
    out.push({ kind: 'repaired', card: item.card, detail: item.reason });
  }
  return out;
}
