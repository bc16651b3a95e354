import fs from 'node:fs/promises';
import path from 'node:path';
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
  state: {
    readonly fullNeeded: boolean;
    readonly overflow?: boolean;
    /** Cards landed in done/ that no pending card can be waiting for (see `neutralDoneLandings`). */
    readonly neutralDone?: ReadonlySet<string>;
  },
  limit = MAX_PARTIAL_CARDS,
): FastPathDecision {
  if (reason !== 'change') return { kind: 'full', why: `a ${reason} round` };
  if (state.fullNeeded) return { kind: 'full', why: 'the last round left a card for a full round' };
  if (state.overflow) return { kind: 'full', why: `more than ${limit} changes` };
  if (batch.length === 0) return { kind: 'full', why: 'no named change' };
  const cards = new Set<string>();
  for (const change of batch) {
    const parts = change.path.split('/');
    // A close that no pending card waits on changes no verdict: nothing to plan for it.
    if (change.event === 'add' && parts.length === 3 && parts[0] === 'KANBAN' && parts[1] === 'done' && state.neutralDone?.has(parts[2]!)) continue;
    const pendingCard = parts.length === 3 && parts[0] === 'KANBAN' && parts[1] === 'pending' && isCardFileName(parts[2]!);
    if (!pendingCard || (change.event !== 'add' && change.event !== 'change')) return { kind: 'full', why: `${change.event} ${change.path}` };
    cards.add(parts[2]!);
  }
  if (cards.size > limit) return { kind: 'full', why: `more than ${limit} cards` };
  return { kind: 'partial', cards: [...cards].sort() };
}

/**
 * Of the cards that just landed in done/, those that cannot satisfy any input a pending card was
 * missing (`missing`: the vault-relative paths the last full round, and partial rounds since,
 * found absent). A done/ landing matters to the census only through a card's `inputs` (a
 * director's `dependent_task` among them): `KANBAN/done/X` can make a missing path appear only if
 * that path ends in `X`, or if it is itself a (dangling) link, since a path whose last component
 * is not a link names a file of that very name. Anything else about a close (the in-progress/
 * name it left, a double link) is a full round's business at the heartbeat. Unknown `missing`
 * (no full round yet): nothing is neutral.
 */
export async function neutralDoneLandings(vaultRoot: string, batch: readonly BatchChange[], missing: ReadonlySet<string> | undefined, linked?: LinkedMissing): Promise<Set<string>> {
  const neutral = new Set<string>();
  if (!missing) return neutral;
  const landed = batch.filter((c) => c.event === 'add' && /^KANBAN\/done\/[^/]+$/.test(c.path)).map((c) => c.path.slice('KANBAN/done/'.length));
  if (landed.length === 0) return neutral;
  const names = new Set<string>();
  for (const rel of missing) {
    const base = path.posix.basename(rel);
    if (landed.includes(base)) {
      names.add(base);
      continue;
    }
    if (await (linked ? linked.isLink(vaultRoot, rel) : isLink(vaultRoot, rel))) return neutral;
  }
  for (const name of landed) if (!names.has(name)) neutral.add(name);
  return neutral;
}

async function isLink(vaultRoot: string, rel: string): Promise<boolean> {
  const stat = await fs.lstat(path.join(vaultRoot, rel)).catch(() => undefined);
  return stat?.isSymbolicLink() === true;
}

/**
 * Which missing inputs are links, each looked up once per full round (the daemon makes a new one
 * for every full round). Without it every close landing in done/ cost one \`lstat\` per missing
 * input of the whole board (a 10k-card board's 770: ~25 ms a close, beside the next drop's round).
 * A link made since that round is the heartbeat's to see, as any input appearing outside the
 * watched folders is.
 */
export class LinkedMissing {
  private readonly known = new Map<string, Promise<boolean>>();

  isLink(vaultRoot: string, rel: string): Promise<boolean> {
    let answer = this.known.get(rel);
    if (!answer) this.known.set(rel, (answer = isLink(vaultRoot, rel)));
    return answer;
  }
}
