import type { Plan } from '../core/types.js';
import type { Transition } from '../round/context.js';
import { isCardFileName } from '../vault/layout.js';
import type { WatchEvent } from './relevance.js';
import type { RoundReason } from './scheduler.js';

/**
 * Whether a `board watch` round may be a partial one (see src/round/partial-round.ts for why its
 * dispatches are the ones a full round would make). Pure: the daemon feeds it the round's reason,
 * the debounced batch of changes and what the last round left behind.
 */

/** More cards than this in one batch: a full round is as cheap and certainly right. */
export const MAX_PARTIAL_CARDS = 50;

export interface BatchChange {
  readonly event: WatchEvent;
  /** Vault-relative, `/` separators. */
  readonly path: string;
}

export type FastPathDecision = { readonly kind: 'partial'; readonly cards: readonly string[] } | { readonly kind: 'full'; readonly why: string };

/**
 * What the last round (full or partial) left that only a full round can act on: a card waiting
 * for capacity (`max_dispatches_per_round` reached) or a claim that failed (still in pending/, a
 * candidate again). Until a full round runs without either, every batch takes the full path.
 */
export function needsFullRound(plan: Plan, transitions: readonly Transition[]): boolean {
  return plan.waiting.some((w) => w.kind === 'capacity') || transitions.some((t) => t.kind === 'failed');
}

export function decideFastPath(
  reason: RoundReason,
  batch: readonly BatchChange[],
  state: { readonly fullNeeded: boolean; readonly overflow?: boolean },
  limit = MAX_PARTIAL_CARDS,
): FastPathDecision {
  if (reason !== 'change') return { kind: 'full', why: `a ${reason} round` };
  if (state.fullNeeded) return { kind: 'full', why: 'the last round left a card for a full round' };
  if (state.overflow) return { kind: 'full', why: `more than ${limit} changes` };
  if (batch.length === 0) return { kind: 'full', why: 'no named change' };
  const cards = new Set<string>();
  for (const change of batch) {
    const parts = change.path.split('/');
    const pendingCard = parts.length === 3 && parts[0] === 'KANBAN' && parts[1] === 'pending' && isCardFileName(parts[2]!);
    if (!pendingCard || (change.event !== 'add' && change.event !== 'change')) return { kind: 'full', why: `${change.event} ${change.path}` };
    cards.add(parts[2]!);
  }
  if (cards.size > limit) return { kind: 'full', why: `more than ${limit} cards` };
  return { kind: 'partial', cards: [...cards].sort() };
}
