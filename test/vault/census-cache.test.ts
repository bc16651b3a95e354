import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardSchema } from '../../src/schema/card.js';
import { profileSchema } from '../../src/schema/profile.js';
import { CensusCache } from '../../src/vault/census-cache.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { readSnapshot } from '../../src/round/read-snapshot.js';
import { card, makeTree, profile } from '../helpers/vault.js';

const cardText = (request: string) => card(`function: count\nrequest: ${request}\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []`);
/** A clock far enough ahead that every file just written counts as settled (not racy). */
const later = () => Date.now() + 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function board(files: Record<string, string>) {
  const root = makeTree(files);
  return { root, file: (rel: string) => path.join(root, rel) };
}

describe('CensusCache', () => {
  it('answers an unchanged file from memory (a hit: the very same parse)', async () => {
    const b = board({ 'a.md': cardText('count words') });
    const cache = new CensusCache({ clock: later });
    cache.beginRound();
    const first = await cache.read(b.file('a.md'), 'a.md', cardSchema);
    cache.endRound();
    cache.beginRound();
    const second = await cache.read(b.file('a.md'), 'a.md', cardSchema);
    cache.endRound();
    expect(first.ok).toBe(true);
    expect(second).toBe(first);
    expect(cache.stats).toEqual({ hits: 1, misses: 1, evictions: 0 });
  });

  it('reads again when the file changed: new bytes, a rename over it, or times set back', async () => {
    const b = board({ 'a.md': cardText('count words') });
    const cache = new CensusCache({ clock: later });
    const read = async () => {
      cache.beginRound();
      const parsed = await cache.read(b.file('a.md'), 'a.md', cardSchema);
      cache.endRound();
      return parsed.ok ? parsed.value.request : parsed.problems[0]!.reason;
    };
    expect(await read()).toBe('count words');
    await sleep(20);
    fs.writeFileSync(b.file('a.md'), cardText('count lines'));
    expect(await read()).toBe('count lines');
    // Same size, mtime put back to the nanosecond (`touch -r`, as a sync tool does): the ctime still moved.
    execFileSync('touch', ['-r', b.file('a.md'), b.file('times')]);
    const before = fs.statSync(b.file('a.md'));
    await sleep(20);
    fs.writeFileSync(b.file('a.md'), cardText('count pages'));
    execFileSync('touch', ['-r', b.file('times'), b.file('a.md')]);
    expect(fs.statSync(b.file('a.md')).mtimeMs).toBe(before.mtimeMs);
    expect(await read()).toBe('count pages');
    // Replaced by a rename (a new inode).
    await sleep(20);
    fs.writeFileSync(b.file('tmp'), cardText('count notes'));
    fs.renameSync(b.file('tmp'), b.file('a.md'));
    expect(await read()).toBe('count notes');
    // Broken, then gone: declared, never remembered as present.
    await sleep(20);
    fs.writeFileSync(b.file('a.md'), '---\nfunction: [\n---\n');
    expect(await read()).toMatch(/YAML|yaml/);
    fs.rmSync(b.file('a.md'));
    expect(await read()).toBe('vanished while being read');
    expect(cache.size).toBe(0);
    expect(cache.stats.hits).toBe(0);
  });

  it('never remembers a file changed within the racy window, nor a link', async () => {
    const b = board({ 'a.md': cardText('count words') });
    fs.symlinkSync(b.file('a.md'), b.file('link.md'));
    const cache = new CensusCache();
    for (let i = 0; i < 2; i += 1) {
      cache.beginRound();
      await cache.read(b.file('a.md'), 'a.md', cardSchema);
      const link = await cache.read(b.file('link.md'), 'link.md', cardSchema);
      expect(link.ok).toBe(false);
      cache.endRound();
    }
    expect(cache.stats.hits).toBe(0);
    expect(cache.size).toBe(0);
  });

  it('does not answer a read under another schema or name from memory', async () => {
    const b = board({ 'AGENTS/x/PROFILE.md': profile('x', 'function: count\nhandles: [count words]\nskills: [s]') });
    const cache = new CensusCache({ clock: later });
    cache.beginRound();
    const asProfile = await cache.read(b.file('AGENTS/x/PROFILE.md'), 'AGENTS/x/PROFILE.md', profileSchema);
    const asCard = await cache.read(b.file('AGENTS/x/PROFILE.md'), 'AGENTS/x/PROFILE.md', cardSchema);
    cache.endRound();
    expect(asProfile.ok).toBe(true);
    expect(asCard.ok).toBe(false);
    expect(cache.stats.hits).toBe(0);
  });

  it('forgets what a round did not list (eviction), and everything on clear', async () => {
    const b = board({ 'a.md': cardText('count words'), 'b.md': cardText('count lines') });
    const cache = new CensusCache({ clock: later });
    cache.beginRound();
    await cache.read(b.file('a.md'), 'a.md', cardSchema);
    await cache.read(b.file('b.md'), 'b.md', cardSchema);
    cache.endRound();
    expect(cache.size).toBe(2);
    cache.beginRound();
    await cache.read(b.file('a.md'), 'a.md', cardSchema);
    cache.endRound();
    expect(cache.size).toBe(1);
    expect(cache.stats.evictions).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('gives readSnapshot what a full read gives, and keeps no card that left pending/', async () => {
    const root = makeTree({
      'vault/AGENTS/counter/PROFILE.md': profile('counter', 'function: count\nhandles: [count words]\nskills: [s]'),
      'vault/KANBAN/pending/a.md': cardText('count words'),
      'vault/KANBAN/pending/b.md': cardText('count lines'),
      'vault/KANBAN/in-progress/.keep': '',
    });
    const layout = new VaultLayout(path.join(root, 'vault'));
    const cache = new CensusCache({ clock: later });
    const strip = (s: Awaited<ReturnType<typeof readSnapshot>>) => JSON.parse(JSON.stringify({ ...s, existingNames: [...s.existingNames].sort(), inputs: [...s.inputs], runs: [...s.runs], dependents: [...s.dependents] }));
    const first = await readSnapshot(layout, cache);
    expect(strip(first)).toEqual(strip(await readSnapshot(layout)));
    const second = await readSnapshot(layout, cache);
    expect(strip(second)).toEqual(strip(first));
    expect(cache.stats.hits).toBe(3);
    fs.renameSync(path.join(layout.pending, 'b.md'), path.join(layout.inProgress, 'b.md'));
    fs.rmSync(path.join(layout.pending, 'a.md'));
    const third = await readSnapshot(layout, cache);
    expect(third.pending).toEqual([]);
    expect(third.inProgress.map((c) => c.file)).toEqual(['b.md']);
    // The profile and the moved card (a new path: read once more) are all it remembers.
    expect(cache.size).toBe(2);
  });
});
