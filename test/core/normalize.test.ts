import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalize, occursIn } from '../../src/core/normalize.js';

describe('normalize', () => {
  it.each([
    ['', ''],
    ['   ', ''],
    ['Hello', 'hello'],
    ['  Hello,   World!  ', 'hello world'],
    ['Transcribe-Audio_file.mp3', 'transcribe audio file mp3'],
    ['Café crème brûlée', 'cafe creme brulee'],
    ['ÀÉÎÕÜ ñ ç', 'aeiou n c'],
    ['Ångström', 'angstrom'],
    ['İstanbul', 'istanbul'],
    ['ﬁle', 'file'], // NFKD splits the ligature
    ['ＡＢＣ１２３', 'abc123'], // full-width forms fold to ASCII
    ['x²', 'x2'],
    ['tab\tand\nnewline', 'tab and newline'],
    ['a---b___c', 'a b c'],
    ['2026-08-20', '2026 08 20'],
    ['naïve "quoted" (parens)', 'naive quoted parens'],
    ['😀 emoji 😀', 'emoji'],
    ['日本語 テキスト', '日本語 テキスト'],
    ['Straße', 'straße'],
    ['A.B.C.', 'a b c'],
  ])('normalize(%j) = %j', (input, expected) => {
    expect(normalize(input)).toBe(expected);
  });

  it('takes the ASCII shortcut to the very result of the CONTRACT definition', () => {
    const definition = (text: string) => text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 40 });
    fc.assert(fc.property(fc.oneof(ascii, fc.string({ unit: 'grapheme', maxLength: 20 })), (text) => normalize(text) === definition(text)), { numRuns: 2000 });
  });

  it('is idempotent', () => {
    for (const s of ['Café  crème', 'ÀB-c_d', '  x  ', 'ﬁ², Ω']) expect(normalize(normalize(s))).toBe(normalize(s));
  });
});

describe('occursIn', () => {
  it.each([
    ['audio', 'transcribe this audio file', true],
    ['audio file', 'transcribe this audio file', true],
    ['transcribe', 'transcribe this audio file', true],
    ['file', 'transcribe this audio file', true],
    ['this audio file', 'transcribe this audio file', true],
    ['transcribe this audio file', 'transcribe this audio file', true],
    ['aud', 'transcribe this audio file', false], // no partial words
    ['udio', 'transcribe this audio file', false],
    ['audio files', 'transcribe this audio file', false],
    ['file transcribe', 'transcribe this audio file', false], // order matters
    ['audiofile', 'transcribe this audio file', false],
    ['', 'anything', false],
    ['', '', false],
    ['x', '', false],
    ['a b', 'a  b', false], // inputs must already be normalized: no collapsing here
  ])('occursIn(%j, %j) = %s', (descriptor, request, expected) => {
    expect(occursIn(descriptor, request)).toBe(expected);
  });

  it('matches on word boundaries after normalizing both sides', () => {
    expect(occursIn(normalize('Résumé'), normalize('Write my RESUME, please!'))).toBe(true);
    expect(occursIn(normalize('e-mail'), normalize('send the E-Mail now'))).toBe(true);
    expect(occursIn(normalize('mail'), normalize('send the e-mail now'))).toBe(true);
    expect(occursIn(normalize('email'), normalize('send the e-mail now'))).toBe(false);
  });
});
