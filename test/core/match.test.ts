import { describe, expect, it } from 'vitest';
import { indexProfiles, matchCard, toMatchable, type MatchableProfile } from '../../src/core/match.js';

type P = { name: string; function: string; handles: string[]; refuses?: string[] };

function run(profiles: P[], card: { function: string; request: string; recipient?: string | null }) {
  const matchable = profiles.map(toMatchable);
  return matchCard(card, indexProfiles(matchable), new Set(profiles.map((p) => p.name)));
}

const transcriber: P = { name: 'transcriber', function: 'Transcribe', handles: ['audio', 'voice memo'] };
const podcast: P = { name: 'podcast-transcriber', function: 'transcribe', handles: ['podcast audio'], refuses: ['video'] };
const writer: P = { name: 'writer', function: 'write', handles: ['blog post', 'article'] };

describe('toMatchable', () => {
  it('normalizes function, handles and refuses, dropping empty descriptors', () => {
    expect(toMatchable({ name: 'x', function: ' Write-Up! ', handles: ['Blog Post', '---', 'Café'], refuses: ['  ', 'NSFW'] })).toEqual<MatchableProfile>({
      name: 'x',
      fn: 'write up',
      handles: ['blog post', 'cafe'],
      refuses: ['nsfw'],
    });
  });
  it('treats missing refuses as none', () => {
    expect(toMatchable({ name: 'x', function: 'f', handles: ['a'] }).refuses).toEqual([]);
  });
});

describe('indexProfiles', () => {
  it('groups by normalized function, keeping input order', () => {
    const index = indexProfiles([transcriber, writer, podcast].map(toMatchable));
    expect([...index.keys()]).toEqual(['transcribe', 'write']);
    expect(index.get('transcribe')!.map((p) => p.name)).toEqual(['transcriber', 'podcast-transcriber']);
  });
});

describe('matchCard funnel', () => {
  const all = [transcriber, podcast, writer];
  it.each([
    // [label, card function, request, expected profile, expected descriptor]
    ['single handles match', 'transcribe', 'please transcribe this audio', 'transcriber', 'audio'],
    ['function equality is normalized', '  TRANSCRIBE!! ', 'the voice memo from monday', 'transcriber', 'voice memo'],
    ['longest descriptor wins', 'transcribe', 'my podcast audio, episode 4', 'podcast-transcriber', 'podcast audio'],
    ['refuses eliminates the longer one', 'transcribe', 'podcast audio with a video track', 'transcriber', 'audio'],
    ['diacritics ignored in the request', 'write', 'Un ARTÍCLE, s’il vous plaît', 'writer', 'article'],
    ['multi-word descriptor across punctuation', 'write', 'a blog-post about cats', 'writer', 'blog post'],
  ])('%s', (_label, fn, request, profile, descriptor) => {
    expect(run(all, { function: fn, request })).toEqual({ kind: 'matched', profile, descriptor, via: 'funnel' });
  });

  it('requires function equality: a matching descriptor in another function does not count', () => {
    expect(run(all, { function: 'write', request: 'transcribe the audio' })).toEqual({
      kind: 'unmatched',
      reason: 'no "write" profile handles this request: a profile needs a new descriptor, or this is the next agent to write',
    });
  });

  it('reports a function nobody has', () => {
    expect(run(all, { function: 'Translate', request: 'audio' })).toEqual({ kind: 'unmatched', reason: 'no profile has function "Translate"' });
  });

  it('does not match partial words', () => {
    expect(run(all, { function: 'transcribe', request: 'the audiobook' }).kind).toBe('unmatched');
  });

  it('names the refusing profiles when nothing else matches', () => {
    const r = run([podcast, { ...transcriber, refuses: ['video'] }], { function: 'transcribe', request: 'podcast audio video' });
    expect(r).toEqual({
      kind: 'unmatched',
      reason:
        'no "transcribe" profile handles this request; refused by podcast-transcriber, transcriber: a profile needs a new descriptor, or this is the next agent to write',
    });
  });

  it('refuses only on a word-boundary match', () => {
    expect(run([podcast], { function: 'transcribe', request: 'podcast audio, no videos' })).toMatchObject({ kind: 'matched', profile: 'podcast-transcriber' });
  });

  it('a tie at the top is ambiguous, with sorted names and the reason', () => {
    const a: P = { name: 'zeta', function: 'write', handles: ['poem'] };
    const b: P = { name: 'alpha', function: 'write', handles: ['haiku', 'poem'] };
    expect(run([a, b], { function: 'write', request: 'a poem please' })).toEqual({
      kind: 'ambiguous',
      profiles: ['alpha', 'zeta'],
      descriptor: 'poem',
      reason: 'ambiguous: alpha, zeta tie on descriptors of 4 characters (zeta: "poem"; alpha: "poem")',
    });
  });

  it('ties are on length, not on the same text', () => {
    const a: P = { name: 'a', function: 'write', handles: ['poem'] };
    const b: P = { name: 'b', function: 'write', handles: ['song'] };
    const r = run([a, b], { function: 'write', request: 'a song or a poem' });
    expect(r.kind).toBe('ambiguous');
    if (r.kind === 'ambiguous') expect(r.profiles).toEqual(['a', 'b']);
  });

  it('a longer descriptor breaks what would otherwise be a tie', () => {
    const a: P = { name: 'a', function: 'write', handles: ['poem'] };
    const b: P = { name: 'b', function: 'write', handles: ['poem'] };
    const c: P = { name: 'c', function: 'write', handles: ['love poem'] };
    expect(run([a, b, c], { function: 'write', request: 'a love poem' })).toEqual({ kind: 'matched', profile: 'c', descriptor: 'love poem', via: 'funnel' });
  });

  it('a tie below the top does not matter', () => {
    const a: P = { name: 'a', function: 'write', handles: ['poem'] };
    const b: P = { name: 'b', function: 'write', handles: ['poem'] };
    const c: P = { name: 'c', function: 'write', handles: ['sonnet'] };
    expect(run([a, b, c], { function: 'write', request: 'a sonnet poem' })).toMatchObject({ kind: 'matched', profile: 'c' });
  });

  it('length is measured after normalization', () => {
    const a: P = { name: 'a', function: 'write', handles: ['--poem--!!'] }; // "poem", 4
    const b: P = { name: 'b', function: 'write', handles: ['poems'] }; // 5
    expect(run([a, b], { function: 'write', request: 'poem poems' })).toEqual({ kind: 'matched', profile: 'b', descriptor: 'poems', via: 'funnel' });
  });

  it('a refused profile cannot win even with the longest descriptor', () => {
    const a: P = { name: 'a', function: 'write', handles: ['long descriptor here'], refuses: ['here'] };
    const b: P = { name: 'b', function: 'write', handles: ['long'] };
    expect(run([a, b], { function: 'write', request: 'long descriptor here' })).toMatchObject({ kind: 'matched', profile: 'b', descriptor: 'long' });
  });

  it('a profile whose descriptors all normalize to nothing matches nothing', () => {
    const a: P = { name: 'a', function: 'write', handles: ['!!!'] };
    expect(run([a], { function: 'write', request: '!!! anything' }).kind).toBe('unmatched');
  });
});

describe('matchCard recipient', () => {
  const all = [transcriber, writer];
  it('a recipient naming a profile skips the funnel (even function and refuses)', () => {
    expect(run(all, { function: 'nothing-like-it', request: 'xyz', recipient: 'writer' })).toEqual({
      kind: 'matched',
      profile: 'writer',
      descriptor: '',
      via: 'recipient',
    });
    expect(run([{ ...writer, refuses: ['xyz'] }], { function: 'write', request: 'xyz', recipient: ' writer ' })).toMatchObject({ kind: 'matched', profile: 'writer', via: 'recipient' });
  });

  it('a recipient naming no profile is a human', () => {
    expect(run(all, { function: 'write', request: 'blog post', recipient: 'Ana' })).toEqual({
      kind: 'human',
      recipient: 'Ana',
      reason: 'addressed to "Ana", which is no profile: a human\'s card',
    });
  });

  it.each([[null], [undefined], [''], ['   ']])('recipient %j is no recipient: the funnel runs', (recipient) => {
    expect(run(all, { function: 'write', request: 'blog post', recipient })).toEqual({ kind: 'matched', profile: 'writer', descriptor: 'blog post', via: 'funnel' });
  });

  it('profile names are compared after normalizing, as function is (issue 15)', () => {
    expect(run(all, { function: 'write', request: 'blog post', recipient: 'Writer' })).toMatchObject({ kind: 'matched', profile: 'writer', via: 'recipient' });
    expect(run(all, { function: 'write', request: 'blog post', recipient: 'Writers' }).kind).toBe('human');
  });
});
