import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher, type FolderEvent } from '../../src/watch/folder-watcher.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const watchers: FolderWatcher[] = [];
afterEach(() => watchers.splice(0).forEach((w) => w.close()));

function start(stableMs: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-folder-'));
  const dir = path.join(root, 'pending');
  fs.mkdirSync(dir);
  const seen: { event: FolderEvent; name: string; at: number }[] = [];
  const w = new FolderWatcher({
    dir,
    stableMs,
    accept: (n) => n.endsWith('.md') && !n.startsWith('.'),
    onEvent: (event, name) => seen.push({ event, name, at: Date.now() }),
    onUnnamed: () => undefined,
    onError: (error) => {
      throw error;
    },
  });
  w.start();
  watchers.push(w);
  return { root, dir, seen, w };
}

async function until(probe: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

describe('FolderWatcher', () => {
  it('reports a card renamed in long after it was written at once', async () => {
    const { root, dir, seen } = start(400);
    fs.writeFileSync(path.join(root, 'a.md'), 'old card');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, 'a.md'), old, old);
    const t0 = Date.now();
    fs.renameSync(path.join(root, 'a.md'), path.join(dir, 'a.md'));
    await until(() => seen.some((s) => s.name === 'a.md'));
    expect(seen.find((s) => s.name === 'a.md')).toMatchObject({ event: 'add' });
    expect(seen[0]!.at - t0).toBeLessThan(300);
  });

  it('waits stableMs after a fresh card\'s last write, and for a slow writer to pause', async () => {
    const { dir, seen, w } = start(120);
    const t0 = Date.now();
    const fd = fs.openSync(path.join(dir, 'slow.md'), 'w');
    for (let i = 0; i < 6; i += 1) {
      fs.writeSync(fd, `line ${i}\n`);
      await sleep(40);
    }
    fs.closeSync(fd);
    const lastWrite = Date.now() - 40;
    expect(seen).toEqual([]);
    await until(() => seen.length > 0);
    expect(seen[0]).toMatchObject({ event: 'add', name: 'slow.md' });
    expect(seen[0]!.at - lastWrite).toBeGreaterThanOrEqual(100);
    expect(seen[0]!.at - t0).toBeGreaterThanOrEqual(240);
    expect(fs.readFileSync(path.join(dir, 'slow.md'), 'utf8')).toContain('line 5');
    expect(w.settlingCount).toBe(0);
  });

  it('reports an unlink and ignores names it does not accept', async () => {
    const { dir, seen } = start(20);
    fs.writeFileSync(path.join(dir, '.temp.md'), 'x');
    fs.writeFileSync(path.join(dir, 'b.md'), 'x');
    await until(() => seen.some((s) => s.name === 'b.md' && s.event !== 'unlink'));
    fs.rmSync(path.join(dir, 'b.md'));
    await until(() => seen.some((s) => s.event === 'unlink'));
    expect(seen.every((s) => s.name === 'b.md')).toBe(true);
  });
});
