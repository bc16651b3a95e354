import { describe, expect, it } from 'vitest';
import { checkVerb } from '../../src/sandbox/verb-policy.js';

const OWN = '/v/KANBAN/in-progress/mine.md';

describe('checkVerb: what a sandboxed worker may have its supervisor run', () => {
  it.each([
    [['--help']],
    [['-h']],
    [['card', '--help']],
    [['card', 'note', '--help']],
    [['card', 'show', 'any.md', '--json']],
    [['card', 'note', 'mine.md', 'progress']],
    [['card', 'note', OWN, 'progress']],
    [['card', 'note', '/v/KANBAN/in-progress/./mine.md', 'progress']],
    [['card', 'note', 'mine.md', '--', '--config is just text here']],
    [['card', 'close', 'mine.md', '--path', 'out/a.md', '--path=out/b.md']],
    // The value of an option is the next token whatever it looks like, as commander reads it.
    [['card', 'close', 'mine.md', '--empty', '--config']],
    [['card', 'fail', 'mine.md', 'why', '--quiet', '--log-format', 'json']],
    [['card', 'yield', '--until', 'child.md', 'mine.md']],
    [['card', 'new', '--function', 'write', '--request', 'r', '--director', 'mine.md', '--flow', 'f', '--input', 'a=b']],
  ])('allows %j', (args) => {
    expect(checkVerb(args, OWN)).toMatchObject({ ok: true });
  });

  it.each([
    [[], /"board " is not one of the verbs/],
    [['tick'], /"board tick" is not one/],
    [['unblock', 'mine.md'], /"board unblock mine.md" is not one/],
    [['--config', 'x', 'card', 'note', 'mine.md', 'x'], /is not one of the verbs/],
    [['card', 'cancel', 'mine.md', '--reason', 'x'], /"board card cancel" is not one/],
    [['card', 'archive'], /"board card archive" is not one/],
    [['card', 'constructor'], /"board card constructor" is not one/],
    [['card', 'note', 'other.md', 'x'], /only its own card, mine\.md/],
    [['card', 'note', 'KANBAN/in-progress/mine.md', 'x'], /only its own card/],
    [['card', 'close', '/elsewhere/mine.md', '--empty', 'x'], /only its own card/],
    [['card', 'fail', '--', 'other.md', 'x'], /only its own card/],
    [['card', 'yield', '--until', 'mine.md', 'other.md'], /only its own card/],
    [['card', 'note', 'mine.md', 'x', '--config', '/tmp/evil.yml'], /--config is not allowed/],
    [['card', 'note', 'mine.md', 'x', '--config=/tmp/evil.yml'], /--config is not allowed/],
    [['card', 'show', 'mine.md', '--vault', '/'], /--vault is not allowed/],
    [['card', 'note', 'mine.md', 'x', '--now', '2030-01-01'], /--now is not allowed/],
    [['card', 'note', 'mine.md', '-V'], /-V is not allowed/],
    [['card', 'show', 'mine.md', '--path', 'x'], /--path is not allowed/],
  ])('refuses %j', (args, reason) => {
    const verdict = checkVerb(args, OWN);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toMatch(reason);
  });
});
