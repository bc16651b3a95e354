import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import { lintCommand } from '../../src/commands/lint.js';
import { statusCommand } from '../../src/commands/status.js';
import { tickCommand } from '../../src/commands/tick.js';
import { unblockCommand } from '../../src/commands/card.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { silentLogger } from '../../src/log.js';
import { isBoardTempName, tempPathFor, writeFileAtomic } from '../../src/vault/atomic-write.js';
import { lockPaths } from '../../src/vault/lock.js';
import { mapLimit } from '../../src/vault/read-card.js';
import type { RunJob, Spawner } from '../../src/round/spawner.js';
import { FakeSpawner, card, makeBoard, profile, snapshotTree } from '../helpers/vault.js';

/**
 * Hostile and unlucky files (issue 12): each of these once stalled, corrupted or escaped the
 * board. Whatever they hold, a round finishes, declares what it cannot read with a reason, never
 * cycles a card, and never reads or writes outside the vault.
 */

const NOW = '2026-12-02T10:00:00.000Z';
const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');
const fields = (extra = '') => `function: write\nrequest: draft\ncreated: 2026-12-01T09:00:00.000Z\norigin: human\nattempts: 0\npaths: []\n${extra}`;

interface Out {
  code: number;
  text: string;
}

function env(root: string, out: string[]) {
  return { cwd: root, env: {}, stdout: (t: string) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) };
}

async function run(command: (o: { now: string; json?: boolean }, e: ReturnType<typeof env>) => Promise<number>, root: string, json = true): Promise<Out> {
  const out: string[] = [];
  const code = await command({ now: NOW, ...(json ? { json: true } : {}) }, env(root, out));
  return { code, text: out.join('') };
}

const tick = (root: string, json = true, spawner: Spawner = new FakeSpawner()) => run((o, e) => tickCommand(o, e, spawner), root, json);
type Declared = { file: string; reason: string }[];

function laughs(levels: number): string {
  const lines = [fields(), 'l0: &l0 "lol"'];
  for (let i = 1; i <= levels; i += 1) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  return `---\n${lines.join('\n')}\n---\n`;
}

describe('limits: one file cannot stall a round', () => {
  it('a billion laughs (9 and 10 levels) is declared unreadable, never expanded, never moved', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/lol9.md': laughs(9), 'KANBAN/pending/lol10.md': laughs(10), 'KANBAN/pending/ok.md': card(fields()) });
    for (let round = 0; round < 2; round += 1) {
      const { code, text } = await tick(root);
      expect(code).toBe(0);
      const json = JSON.parse(text) as { invalid: Declared; dispatch: { card: string }[] };
      expect(json.invalid.map((p) => p.file).sort()).toEqual(['lol10.md', 'lol9.md']);
      for (const p of json.invalid) expect(p.reason).toMatch(/billion laughs/);
      expect(fs.existsSync(path.join(root, 'vault/KANBAN/pending/lol9.md'))).toBe(true);
    }
  });

  it('a census of slow synchronous reads still lets timers run (the lock refresh, signal handlers)', async () => {
    let fired = 0;
    const timer = setInterval(() => (fired += 1), 0);
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    try {
      await mapLimit(Array.from({ length: 12 }, (_, i) => i), 64, async () => busy(20));
      expect(fired).toBeGreaterThanOrEqual(2);
    } finally {
      clearInterval(timer);
    }
  });

  it('front matter over 1 MiB is declared unreadable', async () => {
    const root = makeBoard({ 'KANBAN/pending/big.md': card(`${fields()}\nnotes: "${'x'.repeat(1024 * 1024)}"`) });
    const json = JSON.parse((await run(dryRunCommand, root)).text) as { invalid: Declared };
    expect(json.invalid).toEqual([{ file: 'big.md', reason: expect.stringMatching(/over 1 MiB/) }]);
  });
});

describe('write paths', () => {
  it('a card that ends exactly at its closing fence is claimed into a valid card', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/bare.md': `---\n${fields()}---`, 'KANBAN/pending/bare-crlf.md': `---\r\n${fields().replace(/\n/g, '\r\n')}---` });
    const spawner = new FakeSpawner();
    const json = JSON.parse((await tick(root, true, spawner)).text) as { invalid: Declared };
    expect(json.invalid).toEqual([]);
    expect(spawner.jobs).toHaveLength(2);
    for (const name of ['bare.md', 'bare-crlf.md']) {
      const text = fs.readFileSync(path.join(root, 'vault/KANBAN/in-progress', name), 'utf8');
      expect(text).not.toContain('---## Record');
      const doc = parseFrontMatter(text);
      expect(doc.data.claimed).toMatch(/^2026-12-02T10:00:00\.00\dZ$/); // one token per card of the round
      expect(doc.body).toMatch(/^## Record\r?\n/);
    }
  });

  it('temp names fit NAME_MAX whatever the target name, stay hidden and are recognised by the sweep', async () => {
    const dir = fs.mkdtempSync(path.join(makeBoard({}), 'names-'));
    for (const name of ['a.md', `${'n'.repeat(252)}.md`, `${'é'.repeat(126)}.md`, `${'😀'.repeat(63)}.md`]) {
      const temp = path.basename(tempPathFor(path.join(dir, name)));
      expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(255);
      expect(temp.startsWith('.')).toBe(true);
      expect(isBoardTempName(temp)).toBe(true);
      expect(temp).not.toContain('\uFFFD');
      await writeFileAtomic(path.join(dir, name), 'x');
      expect(fs.readFileSync(path.join(dir, name), 'utf8')).toBe('x');
    }
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a name longer than the board handles is declared, never claimed; names up to the limit are claimed', async () => {
    const long = `${'l'.repeat(252)}.md`;
    const limit = `${'k'.repeat(177)}.md`;
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, [`KANBAN/pending/${long}`]: card(fields()), [`KANBAN/pending/${limit}`]: card(fields()), [`KANBAN/in-progress/${'m'.repeat(200)}.md`]: card(fields()) });
    for (let round = 0; round < 2; round += 1) {
      const json = JSON.parse((await tick(root)).text) as { invalid: Declared };
      expect(json.invalid.map((p) => [p.file.length, p.reason.replace(/\d+ bytes,/, 'N bytes,')])).toEqual([
        [255, 'name too long: N bytes, the board handles card names up to 180 bytes (rename it shorter)'],
        [203, 'name too long: N bytes, the board handles card names up to 180 bytes (rename it shorter)'],
      ]);
    }
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/pending', long))).toBe(true);
    expect(parseFrontMatter(fs.readFileSync(path.join(root, 'vault/KANBAN/in-progress', limit), 'utf8')).data.claimed).toMatch(/^2026-12-02T10:00:00\.00\dZ$/);
  });
});

describe('control characters', () => {
  it('an origin holding NUL and ESC (as YAML escapes) blocks the card with visible escapes: the card stays text, unblock works, the terminal gets no ESC', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/esc.md': card(fields().replace('origin: human', 'origin: "evil\\0\\e[31mred\\x9b"')) });
    const { text } = await tick(root, false);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('\\u001b[31mred');
    const written = fs.readFileSync(path.join(root, 'vault/KANBAN/pending/esc.md'), 'utf8');
    expect(written).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const doc = parseFrontMatter(written);
    expect(String(doc.data.blocked)).toContain('evil\\u0000\\u001b[31mred\\u009b');
    expect(doc.body).toContain('foreign origin "evil\\u0000\\u001b[31mred\\u009b"');
    const status = await run(statusCommand, root, false);
    expect(status.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const out: string[] = [];
    expect(await unblockCommand('esc.md', { now: NOW }, env(root, out))).toBe(0);
    expect(parseFrontMatter(fs.readFileSync(path.join(root, 'vault/KANBAN/pending/esc.md'), 'utf8')).data.blocked).toBeUndefined();
  });

  it('a file name with ESC and a newline reaches the terminal escaped', async () => {
    const root = makeBoard({ 'KANBAN/pending/x\u001b]0;pwned\u0007\nfake line.txt': 'x' });
    const { text } = await run(dryRunCommand, root, false);
    expect(text).toContain('x\\u001b]0;pwned\\u0007\\u000afake line.txt: not a card: only files named *.md are cards');
  });
});

describe('symbolic links to folders are refused, nothing outside is read or written', () => {
  for (const folder of ['KANBAN/pending', 'KANBAN/in-progress', 'KANBAN/done', 'AGENTS', 'KANBAN/archive/2026-11']) {
    it(`${folder} as a link`, async () => {
      const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/ok.md': card(fields()), 'KANBAN/archive/2026-11/old.md': card(fields()) });
      const outside = path.join(root, 'outside');
      const vaultFolder = path.join(root, 'vault', folder);
      fs.cpSync(vaultFolder, outside, { recursive: true });
      fs.writeFileSync(path.join(outside, 'outside-card.md'), card(fields()));
      fs.rmSync(vaultFolder, { recursive: true });
      fs.symlinkSync(outside, vaultFolder);
      const before = snapshotTree(outside);
      for (const command of [tickCommand, dryRunCommand, statusCommand]) {
        const out: string[] = [];
        await expect(command({ now: NOW, json: true }, env(root, out), new FakeSpawner())).rejects.toThrow(new RegExp(`${vaultFolder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a symbolic link`));
      }
      await expect(unblockCommand('ok.md', { now: NOW }, env(root, []))).rejects.toThrow(/is a symbolic link/);
      expect(snapshotTree(outside)).toEqual(before);
    });
  }

  it('a profile folder as a link is declared, and its profile never matched', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/ok.md': card(fields()) });
    fs.mkdirSync(path.join(root, 'evil'));
    fs.writeFileSync(path.join(root, 'evil/PROFILE.md'), profile('evil', 'function: write\nhandles: [draft, draft]\nskills: [write]\nrank: 100'));
    fs.symlinkSync(path.join(root, 'evil'), path.join(root, 'vault/AGENTS/evil'));
    const json = JSON.parse((await run(dryRunCommand, root)).text) as { dispatch: { profile: string }[]; problems: Declared };
    expect(json.dispatch.map((d) => d.profile)).toEqual(['writer']);
    expect(json.problems).toEqual([{ file: 'AGENTS/evil/', reason: expect.stringMatching(/AGENTS\/evil is a symbolic link/) }]);
  });
});

describe('the census declares everything visible in pending/ that is not a card', () => {
  it('*.md in any case is a card; other names, folders, FIFOs and links are declared in dry-run, tick and status; hidden names are ignored', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'KANBAN/pending/upper.MD': card(fields()),
      'KANBAN/pending/mixed.Md': card(fields()),
      'KANBAN/pending/notes.txt': 'notes',
      'KANBAN/pending/y.md/inner.md': card(fields()),
      'KANBAN/pending/.hidden.md': card(fields()),
      'KANBAN/pending/.editor.swp': 'x',
    });
    const pending = path.join(root, 'vault/KANBAN/pending');
    execFileSync('mkfifo', [path.join(pending, 'pipe.md'), path.join(pending, 'pipe')]);
    fs.symlinkSync('notes.txt', path.join(pending, 'link-to-notes'));
    const expected = [
      { file: 'link-to-notes', reason: 'not a card: a symbolic link' },
      { file: 'notes.txt', reason: 'not a card: only files named *.md are cards' },
      { file: 'pipe', reason: 'not a card: a FIFO (named pipe)' },
      { file: 'pipe.md', reason: 'not a card: a FIFO (named pipe)' },
      { file: 'y.md', reason: 'not a card: a folder' },
    ];
    const dry = JSON.parse((await run(dryRunCommand, root)).text) as { invalid: Declared; dispatch: { card: string }[] };
    expect(Object.keys(dry)).toEqual(expect.arrayContaining(['now', 'dispatch', 'waiting', 'blocked', 'scheduled', 'zombies', 'invalid', 'profiles', 'problems']));
    expect(dry.invalid).toEqual(expected);
    expect(dry.dispatch.map((d) => d.card)).toEqual(['mixed.Md', 'upper.MD']);
    // status lists them once, under notCards (in the census's words), not again as unreadable cards.
    const status = JSON.parse((await run(statusCommand, root)).text) as { notCards: { file: string; reason: string }[]; unreadable: unknown[] };
    expect(status.notCards).toEqual(expected);
    expect(status.unreadable).toEqual([]);
    expect((await run(statusCommand, root, false)).text).toMatch(/pipe\.md — .*FIFO/);
    const ticked = JSON.parse((await tick(root)).text) as { invalid: Declared; transitions: { kind: string; card: string }[] };
    expect(ticked.invalid).toEqual(expected);
    expect(ticked.transitions.filter((t) => t.kind === 'claimed').map((t) => t.card)).toEqual(['mixed.Md', 'upper.MD']);
    expect((await tick(root, false)).text).toContain('y.md: not a card: a folder');
    // Declared, never moved or read through.
    expect(fs.readdirSync(pending).sort()).toEqual(['.editor.swp', '.hidden.md', '.keep', 'link-to-notes', 'notes.txt', 'pipe', 'pipe.md', 'y.md']);
  });
});

describe('the round lock', () => {
  it('a tick whose lock was taken over mid-round exits non-zero and says so', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/ok.md': card(fields()) });
    const owner = lockPaths(path.join(root, 'vault/KANBAN')).owner;
    // Another round "takes the lock over" while this one dispatches: its owner record replaces ours.
    const thief: Spawner = {
      async start(_job: RunJob) {
        fs.writeFileSync(owner, JSON.stringify({ pid: 1, host: 'elsewhere', since: NOW, token: 'theirs' }));
        return { pid: 4242 };
      },
    };
    await expect(tick(root, true, thief)).rejects.toThrow(/round lock was lost during the round.*pid 1 on elsewhere/);
  });
});

describe('lint', () => {
  it('fails on a malformed private env file, naming file and line but never the value', async () => {
    const root = makeBoard({}, { 'private.env': 'GOOD=1\n# comment\nSECRET_VALUE_NOT_A_LINE\n' });
    fs.appendFileSync(path.join(root, 'board.yml'), 'private_env: private.env\n');
    await expect(run(lintCommand, root, false)).rejects.toThrow(/private\.env.*line 3.*not a KEY=value line/);
    await expect(run(lintCommand, root, false)).rejects.not.toThrow(/SECRET_VALUE/);
  });
});
