import { parseTimestamp } from './time.js';

export interface Orderable {
  readonly card: string;
  readonly priority?: string | null | undefined;
  readonly created: string;
}

interface Keyed<T> {
  readonly item: T;
  readonly urgent: boolean;
  /** `created` as epoch ms, parsed once, and only when a comparison gets that far. */
  at?: number;
}

function keyed<T extends Orderable>(item: T): Keyed<T> {
  return { item, urgent: item.priority === 'urgent' };
}

function atOf<T extends Orderable>(k: Keyed<T>): number {
  return (k.at ??= parseTimestamp(k.item.created));
}

function compare<T extends Orderable>(a: Keyed<T>, b: Keyed<T>): number {
  const urgency = Number(b.urgent) - Number(a.urgent);
  if (urgency !== 0) return urgency;
  const age = atOf(a) - atOf(b);
  if (age !== 0 && !Number.isNaN(age)) return age;
  return a.item.card < b.item.card ? -1 : a.item.card > b.item.card ? 1 : 0;
}

/** Step 4's order: urgent first, then oldest `created`, then file name so ties are deterministic. */
export function dispatchOrder<T extends Orderable>(items: readonly T[]): T[] {
  return items.map(keyed).sort(compare).map((k) => k.item);
}

/**
 * The first `limit` items in dispatch order, and the rest in no particular order. A round
 * dispatches a handful of thousands of ready cards: only those few need their places, so this
 * keeps the best `limit` seen so far (one comparison per item, mostly) instead of sorting all.
 * For the cards a round plans (valid timestamps, distinct names: a total order) `first` is
 * `dispatchOrder(items).slice(0, limit)`.
 */
export function firstInDispatchOrder<T extends Orderable>(items: readonly T[], limit: number): { first: T[]; rest: T[] } {
  if (limit <= 0) return { first: [], rest: [...items] };
  if (limit >= items.length) return { first: dispatchOrder(items), rest: [] };
  const best: Keyed<T>[] = [];
  const rest: T[] = [];
  for (const item of items) {
    const k = keyed(item);
    if (best.length === limit && compare(k, best[limit - 1]!) >= 0) {
      rest.push(item);
      continue;
    }
    let at = best.length;
    while (at > 0 && compare(k, best[at - 1]!) < 0) at -= 1;
    best.splice(at, 0, k);
    if (best.length > limit) rest.push(best.pop()!.item);
  }
  return { first: best.map((k) => k.item), rest };
}
