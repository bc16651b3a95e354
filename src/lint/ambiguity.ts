import { indexProfiles, matchCard, toMatchable, type MatchableProfile } from '../core/match.js';
import { normalize } from '../core/normalize.js';
import { isRecord, type Finding, type LintInput } from './types.js';

/**
 * The standard's design-time check: for each descriptor in a profile's `handles`, simulate
 * matching it, as a request, against all profiles; it must resolve to that very profile,
 * unambiguously. Uses the round's own matcher, so lint and dispatch can never disagree.
 */
export function checkAmbiguity(input: LintInput): Finding[] {
  const entries: { file: string; profile: MatchableProfile; fn: string; handles: string[] }[] = [];
  const seen = new Map<string, number>();
  for (const doc of input.profiles) {
    const p = matchableFields(doc.data);
    if (!p) continue;
    seen.set(p.name, (seen.get(p.name) ?? 0) + 1);
    entries.push({ file: doc.file, profile: toMatchable(p), fn: p.function, handles: p.handles });
  }
  // Profiles sharing a name are left out by the round: the schema check reports them.
  const usable = entries.filter((e) => seen.get(e.profile.name) === 1);
  const index = indexProfiles(usable.map((e) => e.profile));
  const names = new Set(usable.map((e) => e.profile.name));
  const findings: Finding[] = [];
  for (const e of usable) {
    e.handles.forEach((descriptor, i) => {
      const field = `handles.${i}`;
      const add = (reason: string) => findings.push({ check: 'ambiguity', file: e.file, field, reason });
      if (normalize(descriptor) === '') return add(`descriptor "${descriptor}" is empty once normalized: it can never match`);
      const result = matchCard({ function: e.fn, request: descriptor }, index, names);
      if (result.kind === 'matched' && result.profile === e.profile.name) return;
      const ownRefuse = e.profile.refuses.find((r) => ` ${normalize(descriptor)} `.includes(` ${r} `));
      const refused = ownRefuse !== undefined ? ` is refused by its own refuses "${ownRefuse}"` : '';
      if (result.kind === 'matched') {
        return add(`descriptor "${descriptor}"${refused}${refused ? ', so it' : ''} resolves to ${result.profile} ("${result.descriptor}"): refine handles/refuses until it has one owner`);
      }
      if (result.kind === 'ambiguous') {
        const others = result.profiles.filter((n) => n !== e.profile.name);
        return add(`descriptor "${descriptor}" is ambiguous between ${result.profiles.join(', ')} (ties with ${others.join(', ')}): refine handles/refuses until it has one owner`);
      }
      if (refused) return add(`descriptor "${descriptor}"${refused}: it can never match`);
      return add(`descriptor "${descriptor}" does not resolve to ${e.profile.name}: ${result.reason}`);
    });
  }
  return findings;
}

/** The fields matching needs, when present and well-typed, even if another field is broken. */
function matchableFields(data: unknown): { name: string; function: string; handles: string[]; refuses: string[] } | undefined {
  if (!isRecord(data)) return undefined;
  const list = (v: unknown): string[] | undefined =>
    typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
  const handles = list(data.handles);
  const refuses = data.refuses === undefined || data.refuses === null ? [] : list(data.refuses);
  if (typeof data.name !== 'string' || typeof data.function !== 'string' || !handles || !refuses) return undefined;
  return { name: data.name, function: data.function, handles, refuses };
}
