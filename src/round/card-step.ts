import { acquireCardLock, CardBusyError, type HeldCardLock } from '../vault/card-lock.js';
import type { RoundContext, Transition } from './context.js';

/** How long a round waits for a verb changing the same card; past it the card is left to the next round. */
export const ROUND_CARD_WAIT_MS = 2_000;

/**
 * One round step's change of one card, under the card's transition lock (docs/transitions.md).
 * A card another process is changing right now is left for the next round, with the holder named.
 */
export async function underCardLock<T>(
  ctx: RoundContext,
  card: string,
  op: string,
  busy: (detail: string) => T,
  work: (lock: HeldCardLock) => Promise<T>,
  options: { readonly closed?: string } = {},
): Promise<T> {
  let lock: HeldCardLock;
  try {
    lock = await acquireCardLock(ctx.layout.kanban, card, op, { waitMs: ROUND_CARD_WAIT_MS, ...options });
  } catch (error) {
    if (error instanceof CardBusyError) return busy(`left for the next round: ${error.message}`);
    return busy(`could not take its transition lock: ${(error as Error).message}`);
  }
  try {
    return await work(lock);
  } finally {
    await lock.release().catch((error: Error) => ctx.logger.child({ card }).warn({ err: error }, 'could not release the card lock'));
  }
}

export function failedTransition(card: string): (detail: string) => Transition {
  return (detail) => ({ kind: 'failed', card, detail });
}
