import type { JournalEvent } from './event.js';

/**
 * The journal as a causal graph: look events up by id, find a card's latest event, and walk
 * `cause` links backward to the first input and forward to the last delivery.
 */
export class JournalIndex {
  readonly byId = new Map<string, JournalEvent>();
  private readonly byCard = new Map<string, JournalEvent[]>();
  private readonly children = new Map<string, JournalEvent[]>();

  constructor(events: Iterable<JournalEvent> = []) {
    for (const e of events) this.add(e);
  }

  add(event: JournalEvent): void {
    if (this.byId.has(event.id)) return;
    this.byId.set(event.id, event);
    if (event.card !== undefined) push(this.byCard, event.card, event);
    if (event.cause !== undefined) push(this.children, event.cause, event);
  }

  /** A card's events in journal order. */
  eventsOf(card: string): readonly JournalEvent[] {
    return this.byCard.get(card) ?? [];
  }

  /** The card's latest event, optionally of the given kinds. */
  lastFor(card: string, kinds?: readonly string[]): JournalEvent | undefined {
    const list = this.byCard.get(card) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (!kinds || kinds.includes(list[i]!.kind)) return list[i];
    return undefined;
  }

  childrenOf(id: string): readonly JournalEvent[] {
    return this.children.get(id) ?? [];
  }

  /** Follow `cause` back to the first event (one with no cause, or whose cause is not in the journal). */
  rootOf(event: JournalEvent): JournalEvent {
    const seen = new Set<string>();
    let at = event;
    while (at.cause !== undefined && !seen.has(at.id)) {
      seen.add(at.id);
      const parent = this.byId.get(at.cause);
      if (!parent) break;
      at = parent;
    }
    return at;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export interface TraceNode {
  readonly event: JournalEvent;
  readonly children: TraceNode[];
  /** True for events of the traced card (the rest is its causal context). */
  readonly own: boolean;
}

/**
 * The causal trees a card belongs to: each of its events is walked back to its root, and each
 * root is expanded forward through every event it led to. A card with events on two unrelated
 * chains (a human re-filed it, say) gets two trees, oldest first.
 */
export function traceCard(index: JournalIndex, card: string): TraceNode[] {
  const roots = new Map<string, JournalEvent>();
  for (const e of index.eventsOf(card)) {
    const root = index.rootOf(e);
    roots.set(root.id, root);
  }
  const seen = new Set<string>();
  const expand = (event: JournalEvent): TraceNode => {
    seen.add(event.id);
    const children = index
      .childrenOf(event.id)
      .filter((c) => !seen.has(c.id))
      .map(expand);
    return { event, children, own: event.card === card };
  };
  return [...roots.values()].sort((a, b) => (a.at < b.at ? -1 : 1)).filter((r) => !seen.has(r.id)).map(expand);
}

/** One line per event, as a readable tree. */
export function renderTrace(nodes: readonly TraceNode[], describe: (e: JournalEvent) => string): string {
  const lines: string[] = [];
  const walk = (node: TraceNode, prefix: string, last: boolean, top: boolean) => {
    const branch = top ? '' : last ? '└─ ' : '├─ ';
    lines.push(`${prefix}${branch}${node.own ? '' : '· '}${describe(node.event)}`);
    const next = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    node.children.forEach((c, i) => walk(c, next, i === node.children.length - 1, false));
  };
  nodes.forEach((n, i) => {
    if (i > 0) lines.push('');
    walk(n, '', true, true);
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
