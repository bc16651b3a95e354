import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexProfiles, matchCard, type MatchableProfile } from '../../src/core/match.js';
import { normalize, occursIn } from '../../src/core/normalize.js';

/** The funnel as the contract words it: one scan of the request per descriptor. */
function reference(card: { function: string; request: string }, profiles: readonly MatchableProfile[]) {
  const candidates = profiles.filter((p) => p.fn === normalize(card.function));
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
    } else if (longest.length === best) winners.push({ profile: profile.name, descriptor: longest });
  }
  return { winners, refused: refused.sort() };
}

const word = fc.constantFrom('audio', 'podcast', 'memo', 'voice', 'report', 'topic', '7', 'weekly', 'a', 'aa', 'secret');
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const rawPhrase = fc.oneof(phrase, fc.constantFrom(' audio', 'voice  memo', '', 'Audio!', 'podcast-audio'));

describe('matchCard over the descriptor trie', () => {
  it('finds exactly what a scan per descriptor finds (winners, their order, refusals)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ handles: fc.array(rawPhrase, { maxLength: 4 }), refuses: fc.array(rawPhrase, { maxLength: 2 }) }), { minLength: 1, maxLength: 6 }),
        fc.array(word, { maxLength: 10 }).map((w) => w.join(', ')),
        (specs, request) => {
          const profiles: MatchableProfile[] = specs.map((s, i) => ({ name: `p${i}`, fn: 'f', handles: s.handles, refuses: s.refuses }));
          const got = matchCard({ function: 'f', request }, indexProfiles(profiles), new Set(profiles.map((p) => p.name)));
          const want = reference({ function: 'f', request }, profiles);
          if (want.winners.length === 1) expect(got).toMatchObject({ kind: 'matched', ...want.winners[0] });
          else if (want.winners.length > 1) {
            expect(got).toMatchObject({ kind: 'ambiguous', profiles: want.winners.map((w) => w.profile).sort(), descriptor: want.winners[0]!.descriptor });
            expect((got as { reason: string }).reason).toContain(want.winners.map((w) => `${w.profile}: "${w.descriptor}"`).join('; '));
          } else {
            expect(got.kind).toBe('unmatched');
            if (want.refused.length > 0) expect((got as { reason: string }).reason).toContain(`refused by ${want.refused.join(', ')}`);
            else expect((got as { reason: string }).reason).not.toContain('refused by');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
