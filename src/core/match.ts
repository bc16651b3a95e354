import { normalize } from './normalize.js';

/** What matching needs of a profile: already-normalized strings, computed once per round. */
export interface MatchableProfile {
  readonly name: string;
  readonly fn: string;
  readonly handles: readonly string[];
  readonly refuses: readonly string[];
}

export function toMatchable(profile: { name: string; function: string; handles: string[]; refuses?: string[] | undefined }): MatchableProfile {
  return {
    name: profile.name,
    fn: normalize(profile.function),
    handles: profile.handles.map(normalize).filter((d) => d !== ''),
    refuses: (profile.refuses ?? []).map(normalize).filter((d) => d !== ''),
  };
}

export type MatchResult =
  | { kind: 'matched'; profile: string; descriptor: string; via: 'funnel' | 'recipient' }
  | { kind: 'unmatched'; reason: string }
  | { kind: 'ambiguous'; profiles: string[]; descriptor: string; reason: string }
  | { kind: 'human'; recipient: string; reason: string };

/** Profiles grouped by normalized function, so a round's matching is not cards × all profiles. */
export type ProfileIndex = ReadonlyMap<string, readonly MatchableProfile[]>;

export function indexProfiles(profiles: readonly MatchableProfile[]): ProfileIndex {
  const index = new Map<string, MatchableProfile[]>();
  for (const p of profiles) {
    const list = index.get(p.fn) ?? [];
    list.push(p);
    index.set(p.fn, list);
  }
  return index;
}

/**
 * The funnel. Level 1: `function` equal. Level 2: a matching `refuses` descriptor eliminates.
 * Level 3: the longest matching `handles` descriptor wins; a tie at the top is ambiguous.
 * A `recipient` skips the funnel: naming a profile dispatches to it, naming anyone else means
 * the card is for a human.
 */
export function matchCard(
  card: { function: string; request: string; recipient?: string | null | undefined },
  index: ProfileIndex,
  profileNames: ReadonlySet<string>,
  normalizedRequest?: string,
): MatchResult {
  if (card.recipient != null && card.recipient.trim() !== '') {
    const recipient = card.recipient.trim();
    if (profileNames.has(recipient)) return { kind: 'matched', profile: recipient, descriptor: '', via: 'recipient' };
    // Compared as `function` is: `recipient: Note Writer` names the profile note-writer.
    const wanted = normalize(recipient);
    for (const name of profileNames) if (normalize(name) === wanted) return { kind: 'matched', profile: name, descriptor: '', via: 'recipient' };
    return { kind: 'human', recipient, reason: `addressed to "${recipient}", which is no profile: a human's card` };
  }
  const candidates = index.get(functionKey(index, card.function)) ?? [];
  if (candidates.length === 0) {
    return { kind: 'unmatched', reason: `no profile has function "${card.function}"` };
  }
  const request = normalizedRequest ?? normalize(card.request);
  if (candidates.length === 1) {
    // The common case (one profile per function): the same walk, without the bookkeeping of many.
    const only = candidates[0]!;
    const { refused, longest } = walkOne(trieOf(candidates), request);
    if (!refused && longest !== '') return { kind: 'matched', profile: only.name, descriptor: longest, via: 'funnel' };
    return unmatchedRequest(card.function, refused ? [only.name] : []);
  }
  const found = findDescriptors(candidates, request);
  let best = -1;
  let winners: { profile: string; descriptor: string }[] = [];
  const refused: string[] = [];
  for (const position of found.positions) {
    const profile = candidates[position]!;
    if (found.refused.has(position)) {
      refused.push(profile.name);
      continue;
    }
    const longest = found.longest.get(position)?.descriptor ?? '';
    if (longest === '') continue;
    if (longest.length > best) {
      best = longest.length;
      winners = [{ profile: profile.name, descriptor: longest }];
    } else if (longest.length === best) {
      winners.push({ profile: profile.name, descriptor: longest });
    }
  }
  if (winners.length === 1) return { kind: 'matched', ...winners[0]!, via: 'funnel' };
  if (winners.length > 1) {
    const names = winners.map((w) => w.profile).sort();
    return {
      kind: 'ambiguous',
      profiles: names,
      descriptor: winners[0]!.descriptor,
      reason: `ambiguous: ${names.join(', ')} tie on descriptors of ${best} characters (${winners
        .map((w) => `${w.profile}: "${w.descriptor}"`)
        .join('; ')})`,
    };
  }
  return unmatchedRequest(card.function, refused);
}

function unmatchedRequest(fn: string, refused: string[]): MatchResult {
  const refusedNote = refused.length > 0 ? `; refused by ${refused.sort().join(', ')}` : '';
  return {
    kind: 'unmatched',
    reason: `no "${fn}" profile handles this request${refusedNote}: a profile needs a new descriptor, or this is the next agent to write`,
  };
}

/**
 * The descriptors of one function's profiles as a trie of words. A normalized request is words
 * joined by single spaces, so "descriptor occurs on word boundaries" (`occursIn`) is exactly
 * "its words are consecutive words of the request": one walk from each word of the request
 * finds every descriptor that occurs, instead of scanning the request once per descriptor
 * (cards × descriptors `indexOf`s a round). A descriptor that is not normalized can never occur
 * in a normalized request either way (its empty words match no word). Built once per group and
 * round (the index is rebuilt every round), kept only as long as the group is.
 */
interface TrieNode {
  readonly next: Map<string, TrieNode>;
  /** Descriptors ending here: candidate position, refuses or handles, index in its list. */
  readonly ends: { position: number; refuses: boolean; order: number; descriptor: string }[];
}

const tries = new WeakMap<readonly MatchableProfile[], TrieNode>();

/** Cards name few functions: each raw spelling is normalized once per index (once per round). */
const functionKeys = new WeakMap<ProfileIndex, Map<string, string>>();

function functionKey(index: ProfileIndex, fn: string): string {
  let keys = functionKeys.get(index);
  if (!keys) functionKeys.set(index, (keys = new Map()));
  let key = keys.get(fn);
  if (key === undefined) keys.set(fn, (key = normalize(fn)));
  return key;
}

function trieOf(candidates: readonly MatchableProfile[]): TrieNode {
  let root = tries.get(candidates);
  if (root) return root;
  root = { next: new Map(), ends: [] };
  candidates.forEach((profile, position) => {
    const add = (descriptor: string, refuses: boolean, order: number) => {
      if (descriptor === '') return;
      let node = root!;
      for (const word of descriptor.split(' ')) {
        let child = node.next.get(word);
        if (!child) node.next.set(word, (child = { next: new Map(), ends: [] }));
        node = child;
      }
      node.ends.push({ position, refuses, order, descriptor });
    };
    profile.refuses.forEach((d, i) => add(d, true, i));
    profile.handles.forEach((d, i) => add(d, false, i));
  });
  tries.set(candidates, root);
  return root;
}

type TrieEnd = TrieNode['ends'][number];

/** Every descriptor of the trie that occurs in a normalized request (its words consecutive words of the request), in the order a walk from each word meets them. */
function eachOccurring(root: TrieNode, request: string, visit: (end: TrieEnd) => void): void {
  const words = request === '' ? [] : request.split(' ');
  for (let i = 0; i < words.length; i += 1) {
    let node = root.next.get(words[i]!);
    for (let j = i + 1; node; j += 1) {
      for (const end of node.ends) visit(end);
      node = j < words.length ? node.next.get(words[j]!) : undefined;
    }
  }
}

/** Of two matching `handles` descriptors, whether `end` beats the current one: longer, or as long and earlier in its list. */
function beats(end: TrieEnd, current: { descriptor: string; order: number }): boolean {
  return end.descriptor.length > current.descriptor.length || (end.descriptor.length === current.descriptor.length && end.order < current.order);
}

/** `findDescriptors` for a single candidate: whether a `refuses` descriptor occurs, and its longest matching `handles` one ('' for none). */
function walkOne(root: TrieNode, request: string): { refused: boolean; longest: string } {
  let refused = false;
  const best = { descriptor: '', order: 0 };
  eachOccurring(root, request, (end) => {
    if (end.refuses) refused = true;
    else if (beats(end, best)) {
      best.descriptor = end.descriptor;
      best.order = end.order;
    }
  });
  return { refused, longest: best.descriptor };
}

/**
 * For one normalized request: which candidates a `refuses` descriptor eliminates, and each
 * candidate's longest matching `handles` descriptor (the first in its list among equals, as a
 * scan in list order finds), with the positions involved in candidate order.
 */
const NONE: ReadonlySet<number> = new Set();
const NO_DESCRIPTORS: ReadonlyMap<number, { descriptor: string; order: number }> = new Map();

function findDescriptors(candidates: readonly MatchableProfile[], request: string) {
  // Most requests meet one or two descriptors: the collections are made on the first.
  let refused: Set<number> | undefined;
  let longest: Map<number, { descriptor: string; order: number }> | undefined;
  eachOccurring(trieOf(candidates), request, (end) => {
    if (end.refuses) {
      (refused ??= new Set()).add(end.position);
      return;
    }
    longest ??= new Map();
    const current = longest.get(end.position);
    if (!current || beats(end, current)) longest.set(end.position, { descriptor: end.descriptor, order: end.order });
  });
  const positions = longest ? [...longest.keys()] : [];
  for (const position of refused ?? []) if (!longest?.has(position)) positions.push(position);
  positions.sort((a, b) => a - b);
  return { refused: refused ?? NONE, longest: longest ?? NO_DESCRIPTORS, positions };
}
