import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JournalIndex,
  MAX_LINE_BYTES,
  dayFile,
  journalDir,
  noopJournal,
  openJournal,
  openJournalFromEnv,
  parseJournalText,
  renderTrace,
  traceCard,
} from '../../src/journal/index.js';

const REPO = path.resolve(__dirname, '../..');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'board-journal-'));

describe('journal: appendMany', () => {
  it('writes many events as whole lines in few writes, across day files, and never through a link', async () => {
    const logs = tmp();
    const errors: string[] = [];
    const journal = openJournal(logs, { onError: (error) => errors.push(error.message) });
    const day1 = new Date(2026, 11, 1, 23, 0);
    const day2 = new Date(2026, 11, 2, 1, 0);
    const many = Array.from({ length: 2000 }, (_, i) => ({ kind: 'census:waiting', actor: 'board', card: `c${i}.md`, detail: 'x'.repeat(60), at: i < 1500 ? day1 : day2 }));
    const events = await journal.appendMany(many);
    const lines1 = fs.readFileSync(dayFile(journalDir(logs), day1), 'utf8').trim().split('\n');
    const lines2 = fs.readFileSync(dayFile(journalDir(logs), day2), 'utf8').trim().split('\n');
    expect(lines1.map((l) => JSON.parse(l).id)).toEqual(events.slice(0, 1500).map((e) => e.id));
    expect(lines2.map((l) => JSON.parse(l).id)).toEqual(events.slice(1500).map((e) => e.id));
    expect(errors).toEqual([]);
    // A link planted at the next day's file name: refused, nothing written through it.
    const day3 = new Date(2026, 11, 3, 9, 0);
    const elsewhere = path.join(logs, 'elsewhere.ndjson');
    fs.writeFileSync(elsewhere, '');
    fs.symlinkSync(elsewhere, dayFile(journalDir(logs), day3));
    await journal.appendMany([{ kind: 'tick:ran', actor: 'board', at: day3 }]);
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe('');
    expect(errors.join('\n')).toMatch(/symbolic link/);
  });
});

describe('journal: append and read', () => {
  it('appends one NDJSON line per event into the day file of its time, with ids and causes', async () => {
    const logs = tmp();
    const journal = openJournal(logs);
    const at = new Date(2026, 11, 2, 10, 0);
    const a = await journal.append({ kind: 'card:created', actor: 'human', card: 'a.md', at });
    const b = await journal.append({ kind: 'card:claimed', actor: 'board', card: 'a.md', cause: a.id, profile: 'writer', at });
    expect(a.id).not.toBe(b.id);
    const text = fs.readFileSync(dayFile(journalDir(logs), at), 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    const read = await journal.read();
    expect(read.problems).toEqual([]);
    expect(read.events.map((e) => [e.kind, e.cause])).toEqual([
      ['card:created', undefined],
      ['card:claimed', a.id],
    ]);
    expect((await journal.read({ card: 'b.md' })).events).toEqual([]);
    expect((await journal.read({ since: new Date(2026, 11, 3) })).events).toEqual([]);
  });

  it('appends many events in order, each day file opened once, ids and times as given, long lines summarized', async () => {
    const logs = tmp();
    const journal = openJournal(logs);
    const day1 = new Date(2026, 11, 2, 23, 59);
    const day2 = new Date(2026, 11, 3, 0, 1);
    const stored = await journal.appendMany([
      { id: 'ev-given-1', at: day1, kind: 'census:waiting', actor: 'board', card: 'a.md', detail: 'one' },
      { at: day1, kind: 'census:waiting', actor: 'board', card: 'b.md', cause: 'ev-given-1', detail: 'x'.repeat(10_000) },
      { at: day2, kind: 'card:unblocked', actor: 'human', card: 'a.md' },
    ]);
    expect(stored[0]!.id).toBe('ev-given-1');
    const lines1 = fs.readFileSync(dayFile(journalDir(logs), day1), 'utf8').split('\n').filter(Boolean);
    const lines2 = fs.readFileSync(dayFile(journalDir(logs), day2), 'utf8').split('\n').filter(Boolean);
    expect(lines1.map((l) => JSON.parse(l).card)).toEqual(['a.md', 'b.md']);
    expect(lines2.map((l) => JSON.parse(l).id)).toEqual([stored[2]!.id]);
    for (const l of [...lines1, ...lines2]) expect(Buffer.byteLength(l) + 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
    const read = await journal.read();
    expect(read.events.map((e) => [e.card, e.cause])).toEqual([
      ['a.md', undefined],
      ['b.md', 'ev-given-1'],
      ['a.md', undefined],
    ]);
    expect(await journal.appendMany([])).toEqual([]);
  });

  it('appendMany reports the events it could not store and never throws', async () => {
    const logs = tmp();
    fs.writeFileSync(path.join(logs, 'journal'), 'a file where the folder should be');
    const failed: string[] = [];
    const journal = openJournal(logs, { onError: (_e, event) => void failed.push(event.card ?? '') });
    await journal.appendMany([{ kind: 'census:waiting', actor: 'board', card: 'a.md' }, { kind: 'census:waiting', actor: 'board', card: 'b.md' }]);
    expect(failed).toEqual(['a.md', 'b.md']);
  });

  it('keeps every line under PIPE_BUF by summarizing long details, never the causal fields', async () => {
    const logs = tmp();
    const journal = openJournal(logs);
    const e = await journal.append({ kind: 'card:noted', actor: 'writer', card: 'a.md', cause: 'ev-x', detail: 'é'.repeat(20_000), data: { big: 'x'.repeat(9000), n: 3 } });
    const line = fs.readFileSync(dayFile(journalDir(logs), new Date(e.at)), 'utf8');
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LINE_BYTES);
    const [stored] = (await journal.read()).events;
    expect(stored).toMatchObject({ id: e.id, kind: 'card:noted', card: 'a.md', cause: 'ev-x' });
    expect(stored!.detail!.length).toBeLessThan(20_000);
  });

  it('the no-op journal writes nothing and still hands out ids', async () => {
    const journal = noopJournal();
    const e = await journal.append({ kind: 'card:closed', actor: 'w', card: 'a.md' });
    expect(e.id).toMatch(/^ev-/);
    expect(journal.enabled).toBe(false);
    expect((await journal.read()).events).toEqual([]);
  });

  it('a verb finds the journal through BOARD_CONFIG, and falls back to the no-op one', async () => {
    const root = tmp();
    fs.writeFileSync(path.join(root, 'board.yml'), 'vault: v\ndefault_harness: x\nlogs: my-logs\n');
    const journal = await openJournalFromEnv({ BOARD_CONFIG: path.join(root, 'board.yml') });
    expect(journal.dir).toBe(path.join(root, 'my-logs', 'journal'));
    expect((await openJournalFromEnv({})).enabled).toBe(false);
    expect((await openJournalFromEnv({ BOARD_CONFIG: path.join(root, 'missing.yml') })).enabled).toBe(false);
  });
});

describe('journal: torn lines', () => {
  const event = (id: string) => JSON.stringify({ id, at: '2026-12-02T10:00:00.000Z', kind: 'card:noted', actor: 'w', card: 'a.md' });

  it('tolerates and reports a torn last line', () => {
    const text = `${event('ev-1')}\n${event('ev-2')}\n${event('ev-3').slice(0, 40)}`;
    const read = parseJournalText(text, 'day.ndjson');
    expect(read.events.map((e) => e.id)).toEqual(['ev-1', 'ev-2']);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]).toMatchObject({ line: 3, torn: true });
    expect(read.problems[0]!.reason).toMatch(/torn last line/);
  });

  it('recovers the event appended after a torn fragment on the same line', () => {
    const text = `${event('ev-1')}\n${event('ev-2').slice(0, 30)}${event('ev-3')}\n`;
    const read = parseJournalText(text, 'day.ndjson');
    expect(read.events.map((e) => e.id)).toEqual(['ev-1', 'ev-3']);
    expect(read.problems[0]).toMatchObject({ line: 2, torn: true });
  });

  it('reports a garbage line in the middle without stopping', async () => {
    const logs = tmp();
    const dir = journalDir(logs);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '2026-12-02.ndjson'), `${event('ev-1')}\nnot json\n${event('ev-2')}\n{"id":"ev-3","at":`);
    const read = await openJournal(logs).read();
    expect(read.events.map((e) => e.id)).toEqual(['ev-1', 'ev-2']);
    expect(read.problems.map((p) => [p.line, p.torn])).toEqual([
      [2, false],
      [4, true],
    ]);
  });
});

describe('journal: concurrent writers', () => {
  let build: string;
  beforeAll(() => {
    // Child processes run the real journal module, compiled once for them.
    build = fs.mkdtempSync(path.join(REPO, 'node_modules', '.board-journal-build-'));
    execFileSync(
      process.execPath,
      [path.join(REPO, 'node_modules/typescript/bin/tsc'), '--outDir', build, '--rootDir', path.join(REPO, 'src'), '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--skipLibCheck', '--noCheck', '--types', 'node', path.join(REPO, 'src/journal/index.ts')],
      { stdio: 'pipe' },
    );
  }, 120_000);
  afterAll(() => fs.rmSync(build, { recursive: true, force: true }));

  it('6 processes × 2000 events into one day file: no line lost, torn or interleaved; ids unique', async () => {
    const logs = tmp();
    const writers = 6;
    const perWriter = 2000;
    const script = `
      const { openJournal } = await import(${JSON.stringify(path.join(build, 'journal/index.js'))});
      const [logs, writer, count] = process.argv.slice(1);
      const journal = openJournal(logs, { onError: (e) => { console.error(e); process.exit(3); } });
      const at = new Date(2026, 11, 2, 12, 0);
      for (let i = 0; i < Number(count); i += 10) {
        await Promise.all(Array.from({ length: 10 }, (_, k) => journal.append({
          kind: 'card:noted', actor: 'w' + writer, card: 'c' + writer + '.md', at,
          // Sizes from tiny to just under the line limit, to stress atomicity.
          detail: String(i + k).padEnd(((i + k) * 37) % 3800, '.'),
          data: { writer: Number(writer), seq: i + k },
        })));
      }
    `;
    const codes = await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, logs, String(w), String(perWriter)], { stdio: ['ignore', 'ignore', 'inherit'] });
          child.once('error', reject);
          child.once('exit', (code) => resolve(code ?? -1));
        }),
      ),
    );
    expect(codes).toEqual(Array(writers).fill(0));
    const files = fs.readdirSync(journalDir(logs));
    expect(files).toEqual(['2026-12-02.ndjson']);
    const text = fs.readFileSync(path.join(journalDir(logs), files[0]!), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n').slice(0, -1);
    expect(lines).toHaveLength(writers * perWriter);
    const parsed = lines.map((l) => JSON.parse(l) as { id: string; data: { writer: number; seq: number } });
    expect(new Set(parsed.map((e) => e.id)).size).toBe(writers * perWriter);
    for (let w = 0; w < writers; w++) {
      const seqs = parsed.filter((e) => e.data.writer === w).map((e) => e.data.seq).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: perWriter }, (_, i) => i));
    }
    const read = await openJournal(logs).read();
    expect(read.problems).toEqual([]);
    expect(read.events).toHaveLength(writers * perWriter);
  }, 120_000);
});

describe('journal: causal trace', () => {
  it('walks causes back to the root and forward to every descendant', () => {
    const ev = (id: string, kind: string, card: string, cause?: string) => ({ id, at: `2026-12-02T10:00:0${id.slice(-1)}.000Z`, kind, actor: 'x', card, ...(cause ? { cause } : {}) });
    const index = new JournalIndex([
      ev('e1', 'card:created', 'dir.md'),
      ev('e2', 'card:claimed', 'dir.md', 'e1'),
      ev('e3', 'card:created', 'child.md', 'e2'),
      ev('e4', 'card:claimed', 'child.md', 'e3'),
      ev('e5', 'card:closed', 'child.md', 'e4'),
      ev('e6', 'card:claimed', 'dir.md', 'e5'),
      ev('e7', 'card:closed', 'other.md'),
    ]);
    const trees = traceCard(index, 'child.md');
    expect(trees).toHaveLength(1);
    expect(trees[0]!.event.id).toBe('e1');
    const text = renderTrace(trees, (e) => `${e.kind} ${e.card}`);
    expect(text).toBe(
      ['· card:created dir.md', '└─ · card:claimed dir.md', '   └─ card:created child.md', '      └─ card:claimed child.md', '         └─ card:closed child.md', '            └─ · card:claimed dir.md', ''].join('\n'),
    );
    expect(text).not.toContain('other.md');
  });
});
