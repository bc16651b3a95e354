import { acquireCardLock, CardBusyError, type HeldCardLock } from '../vault/card-lock.js';
import { CardRefused, refuse, type CardContext } from './context.js';
import { cardNameOf, findCard, type FoundCard } from './find-card.js';

/** How long a verb waits for another change of the same card to finish before refusing. */
export const VERB_LOCK_WAIT_MS = 10_000;

/**
 * One verb's change of one card, whole or not at all with respect to every other change
 * (docs/transitions.md): the card's transition lock is taken first, the card is looked up and
 * read under it, so the checks (state, fence) and the writes see the same card. A racer that
 * finds the lock held waits for it, then reads the card as the winner left it and is refused by
 * the same checks, naming where the card is now.
 */
export async function cardTransaction<T>(
  ctx: CardContext,
  ref: string,
  op: string,
  work: (found: FoundCard, lock: HeldCardLock) => Promise<T>,
  options: { readonly closed?: string } = {},
): Promise<T> {
  const name = await cardNameOf(ctx.layout, ref, ctx.cwd);
  const lock = await lockOrRefuse(ctx, name, op, options);
  try {
    return await work(await findCard(ctx.layout, name, ctx.cwd), lock);
  } catch (error) {
    // Refused after waiting for another change of this card: say which change won.
    if (error instanceof CardRefused && lock.waitedFor) throw new CardRefused(`${error.message} (a ${lock.waitedFor.op} of ${name} by pid ${lock.waitedFor.pid} on ${lock.waitedFor.host} came first)`);
    throw error;
  } finally {
    await lock.release();
  }
}

export async function lockOrRefuse(ctx: CardContext, name: string, op: string, options: { readonly closed?: string } = {}): Promise<HeldCardLock> {
  try {
    return await acquireCardLock(ctx.layout.kanban, name, op, { waitMs: VERB_LOCK_WAIT_MS, ...options });
  } catch (error) {
    if (error instanceof CardBusyError) refuse(`cannot ${op} ${name}: ${error.message}`);
    throw error;
  }
}
