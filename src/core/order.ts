import { parseTimestamp } from './time.js';

export interface Orderable {
  readonly card: string;
  readonly priority?: string | null | undefined;
  readonly created: string;
}

/** Step 4's order: urgent first, then oldest `created`, then file name so ties are deterministic. */
export function dispatchOrder<T extends Orderable>(items: readonly T[]): T[] {
  // Each timestamp is parsed once, not once per comparison.
  const keyed = items.map((item) => ({ item, urgent: item.priority === 'urgent', at: parseTimestamp(item.created) }));
  keyed.sort((a, b) => {
    const urgency = Number(b.urgent) - Number(a.urgent);
    if (urgency !== 0) return urgency;
    const age = a.at - b.at;
    if (age !== 0 && !Number.isNaN(age)) return age;
    return a.item.card < b.item.card ? -1 : a.item.card > b.item.card ? 1 : 0;
  });
  return keyed.map((k) => k.item);
}
