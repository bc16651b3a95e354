import { describe, expect, it } from 'vitest';
import { failureTail, oneLine, REASON_MAX, scrubSecrets, TAIL_LINES } from '../../src/core/failure-reason.js';

const TRACEBACK = [
  'thinking about the card',
  'Traceback (most recent call last):',
  '  File "<string>", line 1, in <module>',
  'ValueError: the input table has no header row',
  '',
].join('\n');

describe('failureTail', () => {
  it.each<[string, string, string | undefined]>([
    ['a traceback: its last line', TRACEBACK, 'ValueError: the input table has no header row'],
    ['an error line before a plain last line', 'Error: cannot open notes.md\nbye\n', 'Error: cannot open notes.md'],
    ['no error line: the last non-empty line', 'working\nstill working\n\n\n', 'still working'],
    ['each keyword counts', 'a\nconnect ECONNREFUSED 127.0.0.1:9\nok\n', 'connect ECONNREFUSED 127.0.0.1:9'],
    ['permission denied', 'x\nopen /etc/shadow: permission denied\n', 'open /etc/shadow: permission denied'],
    ['nothing printed', '', undefined],
    ['only blank lines', '\n\n  \n', undefined],
  ])('%s', (_label, text, reason) => {
    expect(failureTail(text).reason).toBe(reason);
  });

  it('keeps the last lines only, and drops a first line cut mid-way', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    const tail = failureTail(`partial${lines.join('\n')}`, { cut: true }).tail!.split('\n');
    expect(tail).toHaveLength(TAIL_LINES);
    expect(tail[TAIL_LINES - 1]).toBe('line 49');
    expect(failureTail('half a line\nwhole', { cut: true }).tail).toBe('whole');
  });

  it("leaves out lines that are not the worker's", () => {
    const text = 'ValueError: x\n[board supervisor 2026-12-03T10:00:00Z] worker exited with code 1\n';
    expect(failureTail(text, { skip: (l) => l.startsWith('[board supervisor ') })).toEqual({ tail: 'ValueError: x', reason: 'ValueError: x' });
  });

  it('escapes control characters, so no ESC or NUL reaches a card or a terminal', () => {
    const found = failureTail('\u001b[31mError: red\u0000\u001b[0m\n');
    expect(found.reason).toBe('\\u001b[31mError: red\\u0000\\u001b[0m');
    expect(found.tail).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it('scrubs the private values and key-shaped text from the tail and the reason', () => {
    const text = 'calling with hunter2-private-value\nAuthorization: Bearer abcdefghijkl0123\nError: key sk-ant-api03-AAAAAAAAAAAAAAAA rejected\n';
    const found = failureTail(text, { secrets: ['hunter2-private-value'] });
    expect(found.tail).not.toContain('hunter2-private-value');
    expect(found.tail).not.toContain('abcdefghijkl0123');
    expect(found.tail).not.toContain('sk-ant-api03');
    expect(found.reason).toBe('Error: key <redacted> rejected');
  });

  it('cuts the reason to one line of at most 200 characters', () => {
    const reason = failureTail(`Error: ${'x'.repeat(500)}\n`).reason!;
    expect(reason).toHaveLength(REASON_MAX);
    expect(reason.endsWith('…')).toBe(true);
    expect(oneLine('a\nb')).toBe('a\\u000ab');
  });
});

describe('scrubSecrets', () => {
  it.each([
    ['api_key=abcdefgh12345678', 'api_key=<redacted>'],
    ['"token": "abcdefgh12345678"', '"token": "<redacted>"'],
    ['Bearer abcdefgh12345678', 'Bearer <redacted>'],
    ['sk-abcdefgh1234', '<redacted>'],
    ['a short sk-1 stays', 'a short sk-1 stays'],
  ])('%s', (text, expected) => {
    expect(scrubSecrets(text, [])).toBe(expected);
  });

  it('never scrubs with a value too short to be a secret', () => {
    expect(scrubSecrets('a b c', ['a'])).toBe('a b c');
  });
});
