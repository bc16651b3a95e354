import { posix } from 'node:path';
import type { Card } from '../schema/card.js';
import { normalize } from './normalize.js';
import { suspiciousReason } from './suspicious.js';
import { awaitedCard } from './flows.js';
import type { DependentFact, InputFact } from './types.js';

/**
 * Step 2: the card census. Decides, for one readable pending card, whether it is skipped and
 * why, before any matching. The order of the checks is the order of their importance: a card
 * already blocked says so first; a foreign or suspicious card is blocked before anything about
 * it is trusted.
 */

export type CensusVerdict =
  | { kind: 'eligible' }
  | { kind: 'already-blocked'; reason: string }
  | { kind: 'block'; reason: string }
  | { kind: 'wait'; reason: string };

export interface CensusContext {
  readonly trustedOrigins: ReadonlySet<string>;
  readonly maxAttempts: number;
  readonly inputs: ReadonlyMap<string, InputFact>;
  /** Children in done/ that pending cards wait on through `inputs.dependent_task`. */
  readonly dependents?: ReadonlyMap<string, DependentFact>;
}

export function isBlocked(card: Card): boolean {
  return typeof card.blocked === 'string' && card.blocked.trim() !== '';
}

/** Every vault-relative path a card's `inputs` name, with the slot that names it. */
export function inputPaths(card: Pick<Card, 'inputs'>): { slot: string; path: string }[] {
  const out: { slot: string; path: string }[] = [];
  // Most cards have no inputs: asked for every card twice a round.
  if (!card.inputs) return out;
  for (const [slot, value] of Object.entries(card.inputs)) {
    for (const path of Array.isArray(value) ? value : [value]) out.push({ slot, path });
  }
  return out;
}

/**
 * A path is lexically safe when it is relative, uses `/`, and never climbs above the vault.
 * (Links that lead out are caught by the shell's realpath check and reported as `inside: false`.)
 */
export function isSafeVaultPath(path: string): boolean {
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path) || path.includes('\0')) return false;
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth -= 1;
    else if (part !== '.' && part !== '') depth += 1;
    if (depth < 0) return false;
  }
  return depth > 0;
}

/**
 * Claim and close fields on a pending card. Every way back to `pending/` (fail, yield, cancel,
 * reclaim) clears `agent` and `claimed`, and no way back exists for a closed card: a pending card
 * carrying them was written that way. Blocking it (rather than clearing them at the claim) keeps
 * the board from guessing what its author meant, and a card can never forge its own completion.
 */
export function forgedFields(card: Card): string[] {
  const set = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
  return (['closed', 'agent', 'claimed'] as const).filter((f) => set(card[f]));
}

/** A safe vault path with `.`, `..` and doubled slashes resolved by their letters: what `KANBAN/` is compared with. */
function lexical(path: string): string {
  return posix.normalize(path).replace(/^\.\//, '');
}

/** On the board by its letters (`KANBAN/…`, any case: case-insensitive disks) or by where its links lead. */
function onTheBoard(path: string, fact: InputFact | undefined): boolean {
  const rel = lexical(path);
  return /^kanban(\/|$)/i.test(rel) || fact?.onBoard === true;
}

/** `normalizedRequest`: `normalize(card.request)`, when the caller has it (the planner matches with it too). */
export function censusCard(card: Card, ctx: CensusContext, normalizedRequest?: string): CensusVerdict {
  if (isBlocked(card)) return { kind: 'already-blocked', reason: `blocked: ${String(card.blocked)}` };
  const forged = forgedFields(card);
  if (forged.length > 0) {
    return {
      kind: 'block',
      reason: `arrived in pending/ carrying ${forged.map((f) => `\`${f}\``).join(', ')}, which only the board writes at a claim or a close (a creator's mistake or a forged state): remove them, then unblock`,
    };
  }
  if (card.attempts >= ctx.maxAttempts) {
    return { kind: 'block', reason: `attempts exhausted (${card.attempts} of max_attempts ${ctx.maxAttempts})` };
  }
  // Compared as `function` is (CONTRACT "Matching"): `origin: Human` is the trusted `human`.
  if (!ctx.trustedOrigins.has(card.origin) && !ctx.trustedOrigins.has(normalize(card.origin))) {
    return { kind: 'block', reason: `foreign origin "${card.origin}" (not in trusted_origins)` };
  }
  const suspicious = suspiciousReason(card.request, normalizedRequest);
  if (suspicious) return { kind: 'block', reason: suspicious };
  const inputs = inputPaths(card);
  for (const { slot, path } of inputs) {
    const fact = ctx.inputs.get(path);
    if (!isSafeVaultPath(path) || (fact !== undefined && !fact.inside)) {
      return { kind: 'block', reason: `suspicious input ${slot}: "${path}" leads outside the vault` };
    }
  }
  // A concrete destination is an order to write there: never outside the vault.
  const destination = card.destination;
  if (typeof destination === 'string' && (!isSafeVaultPath(destination) || ctx.inputs.get(destination)?.inside === false)) {
    return { kind: 'block', reason: `suspicious destination: "${destination}" leads outside the vault` };
  }
  // The board's files are the board's: a worker can neither write KANBAN/ nor close with an
  // output there, so such a card could only burn its attempts.
  if (typeof destination === 'string' && onTheBoard(destination, ctx.inputs.get(destination))) {
    return { kind: 'block', reason: `destination "${destination}" lies on the board itself (KANBAN/): an output never lives there, and a worker cannot write it` };
  }
  for (const { slot, path } of inputs) {
    if (slot === 'dependent_task' && awaitedCard(lexical(path)) !== undefined) continue;
    if (onTheBoard(path, ctx.inputs.get(path))) {
      return {
        kind: 'block',
        reason: `input ${slot}: "${path}" lies on the board itself (KANBAN/); only inputs.dependent_task may name the board, as KANBAN/done/<child card>`,
      };
    }
  }
  for (const { slot, path } of inputs) {
    if (!ctx.inputs.get(path)?.exists) return { kind: 'wait', reason: `waiting for input ${slot}: ${path} does not exist yet` };
  }
  // The wiring rule: a child closed with empty `paths` and no recorded justification is a false
  // close. The director is not woken to chain on nothing: its card is blocked, the reason logged.
  for (const { slot, path } of inputs) {
    if (slot !== 'dependent_task') continue;
    const child = ctx.dependents?.get(path);
    if (child?.problem) return { kind: 'block', reason: `its child ${path} cannot be read: ${child.problem}` };
    if (child?.emptyPaths && !child.justified) {
      return { kind: 'block', reason: `false close: its child ${path} closed with empty paths and no recorded justification; the chain does not go on` };
    }
  }
  return { kind: 'eligible' };
}
