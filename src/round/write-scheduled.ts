import path from 'node:path';
import type { PlannedScheduled } from '../core/types.js';
import { createFileExclusive } from '../vault/atomic-write.js';
import { failedTransition, underCardLock } from './card-step.js';
import type { RoundContext, Transition } from './context.js';

/** Step 0's writing half: each due instance is created in `pending/`, never over an existing file. */
export async function writeScheduled(ctx: RoundContext, planned: readonly PlannedScheduled[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned) {
    const log = ctx.logger.child({ card: item.instance, template: item.template });
    // Under the instance name's lock, like `card new`: no card of that name moves into pending/ meanwhile.
    const done = await underCardLock(ctx, item.instance, 'schedule', failedTransition(item.instance), async (lock): Promise<Transition> => {
      try {
        await lock.assertHeld();
        await createFileExclusive(path.join(ctx.layout.pending, item.instance), item.text);
        log.info('scheduled instance written');
        return { kind: 'scheduled', card: item.instance, detail: `from ${item.template}` };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const detail = code === 'EEXIST' ? 'already exists in pending/: left as it is' : `not written: ${(error as Error).message}`;
        log.warn({ err: error }, detail);
        return { kind: 'failed', card: item.instance, detail };
      }
    });
    out.push(done);
  }
  return out;
}
