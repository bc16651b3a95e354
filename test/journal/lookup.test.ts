import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JournalIndex, JournalLookup, dayFile, dayFilesOf, journalDir, openJournal, readJournalDir, type DayFiles, type JournalEvent } from '../../src/journal/index.js';
import { tickCommand } from '../../src/commands/tick.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { localDate } from '../../src/core/time.js';
import { FakeSpawner, card, makeBoard, profile } from '../helpers/vault.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'board-lookup-'));
const DAY = 86_400_000;
/** Local midnight of 2026-12-02, minus `back` days. */
const dayStart = (back: number) => new Date(2026, 11, 2 - back).getTime();

/** Day files read through it are counted: which were opened, and how many bytes. */
function counting(files: DayFiles): DayFiles & { opened: string[]; bytes: number } {
  const counter = {
    opened: [] as string[],
    bytes: 0,
    names: () => files.names(),
    async read(name: string) {
      const buffer = await files.read(name);
      counter.opened.push(name);
      counter.bytes += buffer.length;
      return buffer;
    },
  };
  return counter;
}

const line = (e: Record<string, unknown>) => `${JSON.stringify(e)}\n`;

/** A journal with one file per day: `perDay` tick:ran lines plus card events, `days` days back from 2026-12-02. */
function busyJournal(days: number, perDay: number): { dir: string; ids: Map<string, string> } {
  const dir = journalDir(tmp());
  fs.mkdirSync(dir, { recursive: true });
  const ids = new Map<string, string>();
  let n = 0;
  for (let back = days - 1; back >= 0; back--) {
    let text = '';
    for (let i = 0; i < perDay; i++) {
      const at = new Date(dayStart(back) + Math.floor(((i + 0.5) * DAY) / perDay)).toISOString();
      const id = `ev-${(n++).toString(36).padStart(8, '0')}-000000000000`;
      const card = i % 3 === 0 ? undefined : `card-${back}-${i % 7}.md`;
      text += line({ id, at, kind: card ? 'card:noted' : 'tick:ran', actor: 'board', ...(card ? { card } : {}), detail: 'x'.repeat(120) });
      if (card) ids.set(card, id);
    }
    fs.writeFileSync(path.join(dir, `${localDate(new Date(dayStart(back)))}.ndjson`), text);
  }
  return { dir, ids };
}

describe('a burst: one round meets many new cards', () => {
  it("journals each waiting card's verdict once, caused by its own latest event, with the causes found in one pass", async () => {
    const files: Record<string, string> = { 'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post draft]\nskills: [draft]') };
    for (let i = 0; i < 12; i++) files[`KANBAN/pending/c${String(i).padStart(2, '0')}.md`] = card(`function: write\nrequest: a blog post draft\ncreated: 2026-12-02 09:${String(i).padStart(2, '0')}\norigin: human\npaths: []\nattempts: 0`);
    const root = makeBoard(files);
    const logs = path.join(root, 'logs');
    const journal = openJournal(logs);
    // Some cards have history (one a day back), the others were dropped by hand: no event names them.
    const created = new Map<string, string>();
    for (const name of ['c06.md', 'c08.md', 'c11.md']) created.set(name, (await journal.append({ kind: 'card:created', actor: 'human', card: name, at: new Date(dayStart(name === 'c08.md' ? 1 : 0) + 9 * 3600_000) })).id);
    await journal.append({ kind: 'card:noted', actor: 'human', card: 'other.md', detail: 'mentions "card":"c07.md"', data: { card: 'c07.md' }, at: new Date(dayStart(0) + 9 * 3600_000) });
    const now = new Date(dayStart(0) + 10 * 3600_000).toISOString();
    const env: CommandEnv = { cwd: root, env: {}, stdout: () => undefined, logger: silentLogger(), clock: () => new Date(now) };
    expect(await tickCommand({ now, json: true }, env, new FakeSpawner())).toBe(0);
    const { events } = await journal.read();
    const waits = events.filter((e) => e.kind === 'census:waiting');
    // Five dispatched (max_dispatches_per_round), the seven others wait for capacity.
    expect(waits.map((e) => e.card)).toEqual(['c05.md', 'c06.md', 'c07.md', 'c08.md', 'c09.md', 'c10.md', 'c11.md']);
    for (const e of waits) expect(e.cause, e.card).toBe(created.get(e.card!));
    // The next round: same verdicts, nothing journaled again.
    expect(await tickCommand({ now, json: true }, env, new FakeSpawner())).toBe(0);
    expect((await journal.read()).events.filter((e) => e.kind === 'census:waiting')).toHaveLength(7);
  });
});

describe('journal lookup: stops early', () => {
  const since = new Date(dayStart(0) + 12 * 3600_000 - 92 * DAY);

  it("a card active today costs today's file only: no older day file is opened", async () => {
    const { dir, ids } = busyJournal(30, 200);
    const files = counting(dayFilesOf(dir));
    const found = await new JournalLookup(files).latestFor('card-0-1.md', { since });
    expect(found?.id).toBe(ids.get('card-0-1.md'));
    const today = `${localDate(new Date(dayStart(0)))}.ndjson`;
    expect(files.opened).toEqual([today]);
    expect(files.bytes).toBe(fs.statSync(path.join(dir, today)).size);
  });

  it("a card last seen 3 days ago opens 4 files, newest first, and not the 26 older ones", async () => {
    const { dir, ids } = busyJournal(30, 200);
    const files = counting(dayFilesOf(dir));
    const found = await new JournalLookup(files).latestFor('card-3-2.md', { since });
    expect(found?.id).toBe(ids.get('card-3-2.md'));
    expect(files.opened).toEqual([0, 1, 2, 3].map((back) => `${localDate(new Date(dayStart(back)))}.ndjson`));
  });

  it('a miss searches the window and nothing before it', async () => {
    const { dir } = busyJournal(30, 50);
    const files = counting(dayFilesOf(dir));
    const recent = new Date(dayStart(9));
    expect(await new JournalLookup(files).latestFor('never.md', { since: recent })).toBeUndefined();
    expect(files.opened).toHaveLength(10);
  });

  it('finds a tick in a period from its last day file, and an id from the newest file holding it', async () => {
    const { dir } = busyJournal(30, 200);
    const files = counting(dayFilesOf(dir));
    const lookup = new JournalLookup(files);
    expect(await lookup.anyBetween('tick:ran', new Date(dayStart(7)), new Date(dayStart(0)), { since })).toBe(true);
    expect(files.opened).toEqual([`${localDate(new Date(dayStart(1)))}.ndjson`]);
    files.opened.length = 0;
    const id = 'ev-00000001-000000000000'; // the second event of the oldest day
    expect((await lookup.byId(id, { since }))?.id).toBe(id);
    expect(files.opened).toHaveLength(30);
  });

  it("a tick's causes: no day file but today's is read when every card is active today", async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post draft]\nskills: [draft]'),
      'KANBAN/pending/a.md': card('function: write\nrequest: a blog post draft\ncreated: 2026-12-02 09:00\norigin: human\npaths: []\nattempts: 0'),
      'KANBAN/scheduled/digest.md': card(`function: summarize\nrequest: a digest\norigin: scheduler\ntrigger:\n  every: day\n  time: "08:00"`),
    });
    const logs = path.join(root, 'logs');
    const journal = openJournal(logs);
    await journal.append({ kind: 'tick:ran', actor: 'board', at: new Date(dayStart(1) + 12 * 3600_000) });
    const created = await journal.append({ kind: 'card:created', actor: 'human', card: 'a.md', at: new Date(dayStart(0) + 9 * 3600_000) });
    // An older day file that cannot be read at all: a round that opened it would lose every cause.
    fs.mkdirSync(path.join(journalDir(logs), `${localDate(new Date(dayStart(20)))}.ndjson`));
    const now = new Date(dayStart(0) + 10 * 3600_000).toISOString();
    const env: CommandEnv = { cwd: root, env: {}, stdout: () => undefined, logger: silentLogger(), clock: () => new Date(now) };
    expect(await tickCommand({ now, json: true }, env, new FakeSpawner())).toBe(0);
    fs.rmdirSync(path.join(journalDir(logs), `${localDate(new Date(dayStart(20)))}.ndjson`));
    const { events } = await journal.read();
    expect(events.find((e) => e.kind === 'card:claimed' && e.card === 'a.md')?.cause).toBe(created.id);
    expect(events.filter((e) => e.kind === 'schedule:skipped')).toEqual([]);
  });
});

/** One random journal: a few day files with events of a few cards, out-of-order times, ties, garbage and torn lines. */
const CARDS = ['a.md', 'ba.md', 'c "q".md', 'é.md'] as const;
const KINDS = ['card:created', 'card:claimed', 'card:closed', 'census:waiting', 'tick:ran', 'schedule:skipped'] as const;
const eventArb = fc.record({
  card: fc.option(fc.constantFrom(...CARDS), { nil: undefined }),
  kind: fc.constantFrom(...KINDS),
  // Few distinct offsets: many ties; any order within a file.
  offset: fc.oneof(fc.constantFrom(0, 1000, 3_600_000, 43_200_000, DAY - 1), fc.integer({ min: 0, max: DAY - 1 })),
  mention: fc.option(fc.constantFrom(...CARDS), { nil: undefined }),
  noise: fc.constantFrom('none', 'none', 'none', 'none', 'garbage', 'fragment', 'blank'),
});
const journalArb = fc.record({
  days: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 6 }).chain((days) =>
    fc.tuple(...days.map((back) => fc.tuple(fc.constant(back), fc.array(eventArb, { maxLength: 14 }), fc.boolean()))),
  ),
  sinceBack: fc.integer({ min: 0, max: 10 * 24 }).map((h) => h * 3_600_000),
});

function writeJournal(days: [number, fc.infer<typeof eventArb>[], boolean][]): string {
  const dir = journalDir(tmp());
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  for (const [back, events, tornEnd] of days) {
    let text = '';
    for (const e of events) {
      const event = {
        id: `ev-${(n++).toString(36)}-${'0'.repeat(12)}`,
        at: new Date(dayStart(back) + e.offset).toISOString(),
        kind: e.kind,
        actor: 'board',
        ...(e.card !== undefined ? { card: e.card } : {}),
        // Another card named in the data: a false match the lookup must reject.
        ...(e.mention !== undefined ? { data: { before: e.mention, card: e.mention } } : {}),
      };
      const whole = JSON.stringify(event);
      if (e.noise === 'garbage') text += `not json ${JSON.stringify(e.mention ?? 'x')}\n`;
      if (e.noise === 'blank') text += '\n';
      text += e.noise === 'fragment' ? `${whole.slice(0, 25)}${whole}\n` : `${whole}\n`;
    }
    if (tornEnd) text += JSON.stringify({ id: `ev-${(n++).toString(36)}-x`, at: new Date(dayStart(back)).toISOString(), kind: 'card:closed', actor: 'w', card: 'a.md' }).slice(0, 50);
    fs.writeFileSync(dayFile(dir, new Date(dayStart(back))), text);
  }
  return dir;
}

describe('journal lookup: the same answers as a full read', () => {
  const now = dayStart(0) + 12 * 3_600_000;

  it('latest event per card (any kinds), event by id, a tick in a period, the first event', async () => {
    await fc.assert(
      fc.asyncProperty(
        journalArb,
        fc.constantFrom(...CARDS),
        fc.option(fc.subarray([...KINDS], { minLength: 1 }), { nil: undefined }),
        fc.tuple(fc.integer({ min: 0, max: 11 * 24 }), fc.integer({ min: 1, max: 4 * 24 })),
        async ({ days, sinceBack }, card, kinds, [fromBack, hours]) => {
          const dir = writeJournal(days);
          const since = new Date(now - sinceBack);
          const full = await readJournalDir(dir, { since });
          const index = new JournalIndex(full.events);
          const lookup = new JournalLookup(dayFilesOf(dir));

          expect((await lookup.latestFor(card, { since, kinds }))?.id).toBe(index.lastFor(card, kinds)?.id);
          // Many cards in one pass: each the same as its own search (a card no event names included).
          const many = await new JournalLookup(dayFilesOf(dir)).latestForMany([...CARDS, 'nobody.md'], { since });
          for (const c of [...CARDS, 'nobody.md']) expect(many.get(c)?.id, c).toBe(index.lastFor(c)?.id);

          const events = [...index.byId.values()];
          for (const e of events.slice(0, 3)) expect((await lookup.byId(e.id, { since }))?.id).toBe(e.id);
          expect(await lookup.byId('ev-none', { since })).toBeUndefined();

          const from = new Date(now - fromBack * 3_600_000);
          const to = new Date(from.getTime() + hours * 3_600_000);
          const tick = events.some((e) => e.kind === 'tick:ran' && Date.parse(e.at) >= from.getTime() && Date.parse(e.at) < to.getTime());
          expect(await lookup.anyBetween('tick:ran', from, to, { since })).toBe(tick);

          const earliest = events.length === 0 ? undefined : events.reduce((min, e) => (e.at < min ? e.at : min), events[0]!.at);
          expect(await lookup.earliestAt({ since })).toBe(earliest);
          fs.rmSync(path.dirname(dir), { recursive: true, force: true });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports the unreadable lines it comes across, once each', async () => {
    const dir = journalDir(tmp());
    fs.mkdirSync(dir, { recursive: true });
    const at = new Date(dayStart(0) + 3_600_000);
    const good: JournalEvent = { id: 'ev-1', at: at.toISOString(), kind: 'card:noted', actor: 'w', card: 'a.md' };
    fs.writeFileSync(dayFile(dir, at), `${line(good)}${line(good).slice(0, 30)}"a.md" garbage\n${JSON.stringify({ ...good, id: 'ev-2' }).slice(0, 60)}`);
    const lookup = new JournalLookup(dayFilesOf(dir));
    expect((await lookup.latestFor('a.md', { since: new Date(now - DAY) }))?.id).toBe('ev-1');
    expect((await lookup.latestFor('a.md', { since: new Date(now - DAY) }))?.id).toBe('ev-1');
    expect(lookup.problems.map((p) => [p.line, p.torn])).toEqual([
      [3, true],
      [2, false],
    ]);
  });
});
