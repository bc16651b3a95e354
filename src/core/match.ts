import { normalize, occursIn } from './normalize.js';

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
): MatchResult {
  if (card.recipient != null && card.recipient.trim() !== '') {
    const recipient = card.recipient.trim();
    if (profileNames.has(recipient)) return { kind: 'matched', profile: recipient, descriptor: '', via: 'recipient' };
    return { kind: 'human', recipient, reason: `addressed to "${recipient}", which is no profile: a human's card` };
  }
  const fn = normalize(card.function);
  const candidates = index.get(fn) ?? [];
  if (candidates.length === 0) {
    return { kind: 'unmatched', reason: `no profile has function "${card.function}"` };
  }
  const request = normalize(card.request);
  let best = -1;
  let winners: { profile: string; descriptor: string }[] = [];
  const refused: string[] = [];
  for (const profile of candidates) {
    if (profile.refuses.some((d) => occursIn(d, request))) {
      refused.push(profile.name);
      continue;
    }
    let longest = '';
    for (const d of profile.handles) if (d.length > longest.length && occursIn(d, request)) longest = d;
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
  const refusedNote = refused.length > 0 ? `; refused by ${refused.sort().join(', ')}` : '';
  return {
    kind: 'unmatched',
    reason: `no "${card.function}" profile handles this request${refusedNote}: a profile needs a new descriptor, or this is the next agent to write`,
  };
}
