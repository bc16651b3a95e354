import type { VaultSnapshot } from './types.js';

/**
 * Flows that can never go on (issue 19): a director asleep on `inputs.dependent_task` wakes only
 * when that child lands in `done/`. Two wirings make it wait forever with nothing said: a value
 * naming a card that exists in no state folder (deaf), and directors waiting on each other
 * (circular). Pure: the shell gives the pending cards' waits and where every card name lives.
 */

/** Where a card name lives now. */
export type CardPlace = 'pending' | 'in-progress' | 'done' | 'archive';

export interface FlowCard {
  /** The card's file name. */
  readonly name: string;
  /** Its `inputs.dependent_task` values, as written (vault-relative paths). */
  readonly dependentTasks: readonly string[];
  /** Its `director`, when it is a child: what ties the closest names to their director. */
  readonly director?: string;
  readonly place: CardPlace;
}

export interface FlowProblem {
  /** The pending card that waits forever. */
  readonly card: string;
  readonly kind: 'deaf' | 'cycle';
  /** The `dependent_task` value at fault. */
  readonly value: string;
  readonly reason: string;
  /** For `cycle`: the cards that wait on each other, starting at `card` (the first six of a longer loop). */
  readonly cycle?: readonly string[];
  /** For `cycle`: how many cards the loop holds. */
  readonly cycleLength?: number;
  /** For `deaf`: existing card names it most likely meant, best first. */
  readonly suggestions?: readonly string[];
}

const DONE_PREFIX = 'KANBAN/done/';

/** The card a `dependent_task` value waits for, when it has the one shape that can ever wake: `KANBAN/done/<name>`. */
export function awaitedCard(value: string): string | undefined {
  if (!value.startsWith(DONE_PREFIX)) return undefined;
  const name = value.slice(DONE_PREFIX.length);
  return name !== '' && !name.includes('/') ? name : undefined;
}

/**
 * Every deaf and circular wait among the pending cards of `cards` (cards in the other places are
 * where names live and who their children are). Sorted by card, then value.
 */
export function flowProblems(cards: readonly FlowCard[]): FlowProblem[] {
  const places = new Map<string, CardPlace>();
  for (const c of cards) places.set(c.name, c.place);
  const children = new Map<string, string[]>();
  for (const c of cards) {
    if (!c.director) continue;
    const list = children.get(c.director);
    if (list) list.push(c.name);
    else children.set(c.director, [c.name]);
  }
  const pending = cards.filter((c) => c.place === 'pending' && c.dependentTasks.length > 0);

  const problems: FlowProblem[] = [];
  for (const c of pending) {
    for (const value of c.dependentTasks) {
      const deaf = deafReason(c, value, places, children);
      if (deaf) problems.push({ card: c.name, kind: 'deaf', value, ...deaf });
    }
  }
  problems.push(...cycles(pending, places));
  return problems.sort((a, b) => (a.card < b.card ? -1 : a.card > b.card ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function deafReason(card: FlowCard, value: string, places: ReadonlyMap<string, CardPlace>, children: ReadonlyMap<string, string[]>): { reason: string; suggestions?: string[] } | undefined {
  const awaited = awaitedCard(value);
  const rewire = `repair it with \`board card rewire ${card.name} --until CHILD\``;
  if (awaited === undefined) {
    // A path elsewhere in the vault is an ordinary input (a file someone will write); one under
    // KANBAN/ that is not a card in done/ can never be the child coming back.
    if (!value.startsWith('KANBAN/')) return undefined;
    return { reason: `deaf: dependent_task ${value} is not a card in KANBAN/done/, so nothing will ever wake it; ${rewire}` };
  }
  const place = places.get(awaited);
  if (place === 'archive') {
    return { reason: `deaf: its child ${awaited} is archived, it will never be in done/ again; ${rewire}` };
  }
  if (place !== undefined) return undefined;
  const suggestions = closestNames(awaited, children.get(card.name) ?? [], [...places.keys()].filter((n) => n !== card.name));
  const meant = suggestions.length > 0 ? `; did you mean ${suggestions.join(' or ')}?` : '';
  return { reason: `deaf: no card named ${awaited} anywhere (pending, in-progress, done, archive)${meant} ${rewire}`, ...(suggestions.length > 0 ? { suggestions } : {}) };
}

/** At most three names: the director's own children first (likeliest meant), then the nearest by edits. */
export function closestNames(name: string, ownChildren: readonly string[], names: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  const near: { n: string; d: number }[] = [];
  for (const n of names) {
    if (Math.abs(n.length - name.length) > limit) continue;
    const d = editDistance(name, n, limit);
    if (d <= limit) near.push({ n, d });
  }
  near.sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1));
  const out = [...ownChildren].sort();
  for (const { n } of near) if (!out.includes(n)) out.push(n);
  return out.slice(0, 3);
}

/** Levenshtein distance, giving up (returning `limit + 1`) once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (row[j]! < best) best = row[j]!;
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * Pending cards that wait on each other through `dependent_task` (A on B, B on A; or longer):
 * none is in done/, none can be dispatched, so none ever will be. A card that waits on one in
 * progress is not stuck: that one may still close. Tarjan's strongly connected components.
 */
function cycles(pending: readonly FlowCard[], places: ReadonlyMap<string, CardPlace>): FlowProblem[] {
  const waiting = new Set(pending.map((c) => c.name));
  const edges = new Map<string, { to: string; value: string }[]>();
  for (const c of pending) {
    const out = c.dependentTasks
      .map((value) => ({ to: awaitedCard(value), value }))
      .filter((e): e is { to: string; value: string } => e.to !== undefined && places.get(e.to) === 'pending' && waiting.has(e.to));
    edges.set(c.name, out);
  }
  const components = stronglyConnected([...edges.keys()].sort(), (v) => (edges.get(v) ?? []).map((e) => e.to));

  const problems: FlowProblem[] = [];
  for (const component of components) {
    const members = new Set(component);
    const selfLoop = component.length === 1 && (edges.get(component[0]!) ?? []).some((e) => e.to === component[0]);
    if (component.length < 2 && !selfLoop) continue;
    // One cycle per component, rotated to start at each card on it; a card off it (a component
    // of crossing loops) gets its own: no breadth-first walk per card of a long loop.
    const base = walk([...component].sort()[0]!, members, edges);
    const onBase = new Map(base.map((n, i) => [n, i]));
    for (const card of component) {
      const edge = (edges.get(card) ?? []).find((e) => members.has(e.to))!;
      const i = onBase.get(card);
      const loop = i !== undefined ? base : walk(card, members, edges);
      const from = i ?? 0;
      // The loop's first cards from this one (a long loop is named by its head and its length).
      const cycle = Array.from({ length: Math.min(loop.length, CYCLE_SHOWN) }, (_, k) => loop[(from + k) % loop.length]!);
      problems.push({
        card,
        kind: 'cycle',
        value: edge.value,
        cycle,
        cycleLength: loop.length,
        reason: selfLoop
          ? `circular: ${card} waits for itself (dependent_task ${edge.value}); it can never wake; repair it with \`board card rewire ${card} --until CHILD\``
          : `circular: ${chainText(cycle, loop.length)} wait on each other through dependent_task; none is in done/, so none ever wakes; repair one with \`board card rewire CARD --until CHILD\``,
      });
    }
  }
  return problems;
}

const CYCLE_SHOWN = 6;

/**
 * Tarjan's strongly connected components over integer ids, iterative: a hostile chain of
 * thousands of cards can neither overflow the stack nor cost more than one pass.
 */
export function stronglyConnected(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const id = new Map(nodes.map((n, i) => [n, i]));
  const out = nodes.map((n) => next(n).map((m) => id.get(m)).filter((m): m is number => m !== undefined));
  const index = new Int32Array(nodes.length).fill(-1);
  const low = new Int32Array(nodes.length);
  const onStack = new Uint8Array(nodes.length);
  const stack: number[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (let root = 0; root < nodes.length; root += 1) {
    if (index[root] !== -1) continue;
    const frames: { v: number; next: number }[] = [];
    const enter = (v: number) => {
      index[v] = low[v] = counter;
      counter += 1;
      stack.push(v);
      onStack[v] = 1;
      frames.push({ v, next: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const edges = out[frame.v]!;
      if (frame.next < edges.length) {
        const to = edges[frame.next]!;
        frame.next += 1;
        if (index[to] === -1) enter(to);
        else if (onStack[to]) low[frame.v] = Math.min(low[frame.v]!, index[to]!);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low[parent.v] = Math.min(low[parent.v]!, low[frame.v]!);
      if (low[frame.v] === index[frame.v]) {
        const component: string[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(nodes[w]!);
        } while (w !== frame.v);
        components.push(component);
      }
    }
  }
  return components;
}

/** `a → b → a`; a loop of more than six cards is named by its first three and its length. */
function chainText(head: readonly string[], length: number): string {
  if (length <= CYCLE_SHOWN) return [...head, head[0]!].join(' → ');
  return `${head.slice(0, 3).join(' → ')} → … (${length} cards) → ${head[0]!}`;
}

/** The shortest cycle through `start` inside its component (breadth first), starting at `start`. */
function walk(start: string, members: ReadonlySet<string>, edges: ReadonlyMap<string, { to: string }[]>): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const at = queue[i]!;
    for (const { to } of edges.get(at) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [at];
        while (path[path.length - 1] !== start) path.push(from.get(path[path.length - 1]!)!);
        return path.reverse();
      }
      if (!from.has(to)) {
        from.set(to, at);
        queue.push(to);
      }
    }
  }
  return [start];
}

/** The flow facts a round's snapshot holds: pending and in-progress cards read, done/ and archive/ by name. */
export function flowCardsOf(snapshot: Pick<VaultSnapshot, 'pending' | 'inProgress' | 'existingNames' | 'doneNames'>): FlowCard[] {
  const cards: FlowCard[] = [];
  const seen = new Set<string>();
  const add = (list: VaultSnapshot['pending'], place: CardPlace) => {
    for (const c of list) {
      seen.add(c.file);
      // An unreadable card still has its name where it lies; what it waits on is unknown.
      if (!c.ok) {
        cards.push({ name: c.file, place, dependentTasks: [] });
        continue;
      }
      const value = c.value.inputs?.dependent_task;
      cards.push({ name: c.file, place, dependentTasks: Array.isArray(value) ? value : value ? [value] : [], ...(typeof c.value.director === 'string' ? { director: c.value.director } : {}) });
    }
  };
  add(snapshot.pending, 'pending');
  add(snapshot.inProgress, 'in-progress');
  // A name in neither pending nor in-progress is in done/ or, failing that, archived.
  for (const name of snapshot.existingNames) {
    if (seen.has(name)) continue;
    cards.push({ name, place: snapshot.doneNames === undefined || snapshot.doneNames.has(name) ? 'done' : 'archive', dependentTasks: [] });
  }
  return cards;
}
