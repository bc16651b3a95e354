import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readParsed } from '../../src/vault/read-card.js';
import { cardSchema } from '../../src/schema/card.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-read-card-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CARD = '---\nfunction: write\nrequest: a draft\ncreated: 2026-12-01\norigin: human\n---\nbody\n';

/**
 * A census reads a card it saw listed as a regular file in one native call; what replaced the file
 * since the listing must still be refused or declared, exactly as the careful read does.
 */
describe.each([
  ['careful read', {}],
  ['read of a file seen as a regular file', { seenAsFile: true }],
])('readParsed: %s', (_label, hint) => {
  it('reads a card', async () => {
    fs.writeFileSync(path.join(dir, 'card.md'), CARD);
    const parsed = await readParsed(path.join(dir, 'card.md'), 'card.md', cardSchema, hint);
    expect(parsed).toMatchObject({ ok: true, text: CARD, value: { function: 'write', attempts: 0, paths: [] } });
  });

  it('never follows a link', async () => {
    fs.writeFileSync(path.join(dir, 'target.md'), CARD);
    fs.rmSync(path.join(dir, 'link.md'), { force: true });
    fs.symlinkSync(path.join(dir, 'target.md'), path.join(dir, 'link.md'));
    const parsed = await readParsed(path.join(dir, 'link.md'), 'link.md', cardSchema, hint);
    expect(parsed).toMatchObject({ ok: false, problems: [{ reason: 'a symbolic link, not a file: the board does not follow links' }] });
  });

  it('declares a folder', async () => {
    fs.mkdirSync(path.join(dir, 'folder.md'), { recursive: true });
    const parsed = await readParsed(path.join(dir, 'folder.md'), 'folder.md', cardSchema, hint);
    expect(parsed).toMatchObject({ ok: false, problems: [{ reason: 'not a regular file' }] });
  });

  it('does not block on a FIFO, and declares it', async () => {
    const fifo = path.join(dir, `fifo-${Object.keys(hint).length}.md`);
    execFileSync('mkfifo', [fifo]);
    const parsed = await readParsed(fifo, 'fifo.md', cardSchema, hint);
    expect(parsed.ok).toBe(false);
  });

  it('says a card that is gone has vanished', async () => {
    const parsed = await readParsed(path.join(dir, 'never.md'), 'never.md', cardSchema, hint);
    expect(parsed).toMatchObject({ ok: false, problems: [{ reason: 'vanished while being read' }] });
  });
});
