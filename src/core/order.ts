import { parseTimestamp } from './time.js';

export interface Orderable {
  readonly card: string;
  readonly priority?: string | null | undefined;
  readonly created: string;
}

/** Step 4's order: urgent first, then oldest `created`, then file name so ties are deterministic. */
export function dispatchOrder<T extends Orderable>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => {
    const urgency = Number(b.priority === 'urgent') - Number(a.priority === 'urgent');
    if (urgency !== 0) return urgency;
    const age = parseTimestamp(a.created) - parseTimestamp(b.created);
    if (age !== 0 && !Number.isNaN(age)) return age;
    return a.card < b.card ? -1 : a.card > b.card ? 1 : 0;
  });
}
