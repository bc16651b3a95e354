import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerdictStore, verdictChanges } from '../../src/round/verdict-store.js';

let logs: string;
beforeEach(() => {
  logs = fs.mkdtempSync(path.join(os.tmpdir(), 'verdicts-'));
});
afterEach(() => fs.rmSync(logs, { recursive: true, force: true }));

const mapOf = (o: Record<string, string>) => new Map(Object.entries(o));
/** A store as a fresh process sees it (nothing remembered from this one's rounds). */
const reread = async () => {
  fs.utimesSync(logs, new Date(), new Date()); // no effect on the key: the files' own stats are
  const store = new VerdictStore(logs);
  return new Map(await store.load());
};

describe('verdict changes', () => {
  it('for a full round: every changed, new and vanished card; for a partial one: only its cards', () => {
    const previous = mapOf({ a: 'waiting: x', b: 'blocked', c: 'waiting: y' });
    const next = mapOf({ a: 'waiting: x', b: 'waiting: z', d: 'blocked' });
    expect(verdictChanges(previous, next)).toEqual([
      ['b', 'waiting: z'],
      ['d', 'blocked'],
      ['c', null],
    ]);
    // A partial round speaks for `only`: c is not in it, so it keeps its verdict.
    expect(verdictChanges(previous, mapOf({ d: 'blocked' }), new Set(['a', 'd']))).toEqual([
      ['d', 'blocked'],
      ['a', null],
    ]);
  });
});

describe('the verdict store', () => {
  it('appends a round\'s changes as lines, and another process reads the map plus the lines', async () => {
    const store = new VerdictStore(logs);
    expect((await store.load()).size).toBe(0);
    const first = new Map(Array.from({ length: 3000 }, (_, i) => [`card-${i}.md`, `waiting: reason ${i}`] as const));
    await store.apply(verdictChanges(await store.load(), first));
    // 3000 lines would be over the compaction bound (1000): the map is written at once.
    expect(fs.existsSync(path.join(logs, 'verdicts.json'))).toBe(true);
    expect(fs.existsSync(path.join(logs, 'verdicts.log'))).toBe(false);
    const mapBytes = fs.readFileSync(path.join(logs, 'verdicts.json'), 'utf8');

    // A round that dispatched five and saw one new card: six lines, the map untouched.
    const second = new Map(first);
    for (let i = 0; i < 5; i += 1) second.delete(`card-${i}.md`);
    second.set('new.md', 'waiting: fresh');
    await store.apply(verdictChanges(await store.load(), second));
    expect(fs.readFileSync(path.join(logs, 'verdicts.json'), 'utf8')).toBe(mapBytes);
    const lines = fs.readFileSync(path.join(logs, 'verdicts.log'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0]!)).toEqual({ card: 'new.md', verdict: 'waiting: fresh' });
    expect(lines.slice(1).map((l) => JSON.parse(l).verdict)).toEqual([null, null, null, null, null]);
    expect(await reread()).toEqual(second);
  });

  it('rewrites the map and drops the log once the log outgrows half the map', async () => {
    const store = new VerdictStore(logs);
    let current = new Map<string, string>();
    for (let round = 0; round < 1010; round += 1) {
      const next = new Map(current);
      next.set(`card-${round}.md`, 'waiting: one a round');
      await store.apply(verdictChanges(await store.load(), next));
      current = next;
    }
    // 1001 lines made the 1001st round compact; nine more since.
    expect(fs.readFileSync(path.join(logs, 'verdicts.log'), 'utf8').trim().split('\n')).toHaveLength(9);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(logs, 'verdicts.json'), 'utf8')).cards)).toHaveLength(1001);
    expect(await reread()).toEqual(current);
  });

  it('skips a torn last line, and sees another process\'s writes instead of what it remembers', async () => {
    const store = new VerdictStore(logs);
    await store.apply([['a.md', 'waiting: x']]);
    await store.load();
    fs.appendFileSync(path.join(logs, 'verdicts.log'), '{"card":"b.md","verdict":"blocked"}\n{"card":"c.md","verd');
    expect(await new VerdictStore(logs).load()).toEqual(mapOf({ 'a.md': 'waiting: x', 'b.md': 'blocked' }));
  });

  it('never reads through a link planted at its name', async () => {
    const elsewhere = path.join(logs, 'elsewhere.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ cards: { 'x.md': 'blocked' } }));
    fs.symlinkSync(elsewhere, path.join(logs, 'verdicts.json'));
    expect((await new VerdictStore(logs).load()).size).toBe(0);
  });
});
