import path from 'node:path';
import { parseFrontMatter } from '../format/frontmatter.js';
import type { CardContext } from './context.js';
import { refuse } from './context.js';
import type { FoundCard } from './find-card.js';

/**
 * Fencing (CONTRACT "Closing and fencing"). A worker whose claim was reclaimed as a zombie may
 * still be running; the card's `claimed` value is its fencing token (BOARD_CLAIM). When the
 * token is in the environment, a fenced verb acts only on the worker's own card (BOARD_CARD's
 * file name), only while it is still in `in-progress/` with that same claim. Two cards claimed in
 * one round share a `claimed` value, which is why the card's name is checked too.
 */
export interface Fence {
  readonly claim: string;
  /** The file name of the card the worker was given, when BOARD_CARD is set. */
  readonly card?: string;
}

export function fenceOf(ctx: CardContext): Fence | undefined {
  const claim = ctx.env.BOARD_CLAIM;
  if (!claim) return undefined;
  const card = ctx.env.BOARD_CARD;
  return { claim, ...(card ? { card: path.basename(card) } : {}) };
}

export function checkFence(ctx: CardContext, found: FoundCard, verb: string): void {
  const fence = fenceOf(ctx);
  if (!fence) return;
  if (fence.card !== undefined && fence.card !== found.name) {
    refuse(`cannot ${verb} ${found.name}: this worker was given ${fence.card} (BOARD_CARD), not this card`);
  }
  if (found.state !== 'in-progress') {
    refuse(`cannot ${verb} ${found.name}: the claim ${fence.claim} is no longer held (the card is in ${found.folder}/, it was reclaimed or finished)`);
  }
  if (found.card.claimed !== fence.claim) {
    refuse(`cannot ${verb} ${found.name}: the claim ${fence.claim} is no longer held (the card is now claimed ${JSON.stringify(found.card.claimed ?? null)} by ${found.card.agent ?? 'nobody'})`);
  }
}

/** `editCard`'s `expect`: re-checked on the text as re-read right before the write. */
export function expectClaim(ctx: CardContext, name: string, verb: string): ((text: string) => void) | undefined {
  const fence = fenceOf(ctx);
  if (!fence) return undefined;
  return (text) => {
    const claimed = parseFrontMatter(text).data.claimed;
    if (claimed !== fence.claim) refuse(`cannot ${verb} ${name}: the claim ${fence.claim} was lost while writing (now ${JSON.stringify(claimed ?? null)})`);
  };
}
