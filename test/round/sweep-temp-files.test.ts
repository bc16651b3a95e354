import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { executePlan, planFromVault } from '../../src/round/run-round.js';
import { sweepTempFiles } from '../../src/round/sweep-temp-files.js';
import { readSnapshot } from '../../src/round/read-snapshot.js';
import type { Logger } from '../../src/log.js';
import { makeBoard, roundContext, snapshotTree } from '../helpers/vault.js';

const NOW = new Date('2026-11-02T09:00:00.000Z');
const HOUR = 60 * 60_000;

/** Files a crash mid-write leaves: `.<name>.<pid>.<8 hex>.tmp`. */
const LEFT_BY_CRASH = [
  'KANBAN/pending/.a.md.1234.0a1b2c3d.tmp',
  'KANBAN/in-progress/.b.md.99.deadbeef.tmp',
  'KANBAN/done/.c.md.7.00000000.tmp',
  'KANBAN/scheduled/.weekly.md.42.cafef00d.tmp',
  'KANBAN/archive/2026-10/.d.md.5.12345678.tmp',
  'KANBAN/.runs/.run-1.json.77.abcdef01.tmp',
  'KANBAN/..board.lock.owner.json.3.feedbeef.tmp',
];

/** Names that only look like it, or are not where the board writes: never touched. */
const NOT_OURS = [
  'KANBAN/pending/.a.md.tmp',
  'KANBAN/pending/.a.md.1234.0A1B2C3D.tmp',
  'KANBAN/pending/.a.md.1234.0a1b2c3.tmp',
  'KANBAN/pending/.a.md.x1.0a1b2c3d.tmp',
  'KANBAN/pending/a.md.1234.0a1b2c3d.tmp',
  'KANBAN/pending/.a.md.1234.0a1b2c3d.tmp.bak',
  'KANBAN/pending/.a.md.1234.0a1b2c3d.tmp~',
  'KANBAN/pending/notes.md',
  'KANBAN/pending/sub/.e.md.1.0a1b2c3d.tmp',
  'AGENTS/.f.md.1.0a1b2c3d.tmp',
  '.g.md.1.0a1b2c3d.tmp',
];

function board(): { root: string; vault: string } {
  const files: Record<string, string> = {};
  for (const rel of [...LEFT_BY_CRASH, ...NOT_OURS]) files[rel] = 'half a card';
  const root = makeBoard(files);
  const vault = path.join(root, 'vault');
  fs.mkdirSync(path.join(vault, 'KANBAN/pending/.h.md.1.0a1b2c3d.tmp'));
  // All of it two hours old; one fresh temp file is someone's write in flight.
  const old = new Date(Date.now() - 2 * HOUR);
  for (const rel of [...LEFT_BY_CRASH, ...NOT_OURS]) fs.utimesSync(path.join(vault, rel), old, old);
  fs.writeFileSync(path.join(vault, 'KANBAN/pending/.fresh.md.1.0a1b2c3d.tmp'), 'in flight');
  return { root, vault };
}

function recordingLogger(lines: { msg: string; file?: string }[]): Logger {
  const record = (obj: { file?: string }, msg: string) => lines.push({ msg, ...(obj.file ? { file: obj.file } : {}) });
  return { info: record, warn: record, error: record, debug: () => undefined } as unknown as Logger;
}

describe('sweepTempFiles', () => {
  it('removes exactly the board temp files older than an hour in the state folders, .runs and the lock area, logging each', async () => {
    const { root, vault } = board();
    const ctx = await roundContext(root, NOW);
    const lines: { msg: string; file?: string }[] = [];
    const removed = await sweepTempFiles({ layout: ctx.layout, logger: recordingLogger(lines) });
    expect(removed.sort()).toEqual([...LEFT_BY_CRASH].sort());
    expect(lines.map((l) => l.file).sort()).toEqual([...LEFT_BY_CRASH].sort());
    expect(lines.every((l) => l.msg === 'removed a temp file left by a crash')).toBe(true);
    for (const rel of LEFT_BY_CRASH) expect(fs.existsSync(path.join(vault, rel))).toBe(false);
    for (const rel of NOT_OURS) expect(fs.existsSync(path.join(vault, rel))).toBe(true);
    expect(fs.existsSync(path.join(vault, 'KANBAN/pending/.fresh.md.1.0a1b2c3d.tmp'))).toBe(true);
    expect(fs.statSync(path.join(vault, 'KANBAN/pending/.h.md.1.0a1b2c3d.tmp')).isDirectory()).toBe(true);
  });

  it('takes its age from the real clock and a given threshold', async () => {
    const { root, vault } = board();
    const ctx = await roundContext(root, NOW);
    expect(await sweepTempFiles(ctx, { olderThanMs: 3 * HOUR })).toEqual([]);
    const later = await sweepTempFiles(ctx, { olderThanMs: HOUR, clock: () => Date.now() + 2 * HOUR });
    expect(later).toContain('KANBAN/pending/.fresh.md.1.0a1b2c3d.tmp');
    expect(fs.existsSync(path.join(vault, 'KANBAN/pending/.a.md.tmp'))).toBe(true);
  });

  it('never looks inside the held lock folder (an entry removed there would change its mtime)', async () => {
    const { root, vault } = board();
    const inLock = path.join(vault, 'KANBAN/.board.lock/.owner.json.1.0a1b2c3d.tmp');
    fs.mkdirSync(path.dirname(inLock));
    fs.writeFileSync(inLock, '{}');
    const old = new Date(Date.now() - 2 * HOUR);
    fs.utimesSync(inLock, old, old);
    await sweepTempFiles(await roundContext(root, NOW));
    expect(fs.existsSync(inLock)).toBe(true);
  });

  it('with the census\'s listing: removes the same files, and lists none of the census\'s folders again', async () => {
    const { root } = board();
    const ctx = await roundContext(root, NOW);
    const snapshot = await readSnapshot(ctx.layout);
    const listed = snapshot.listedTemps!;
    for (const folder of ['pending', 'in-progress', 'done', 'scheduled', 'archive/2026-10']) expect(listed.folders).toContain(path.join(ctx.layout.kanban, folder));
    // What the census saw is what a listing of its own finds: every temp file of those folders, fresh or not.
    expect(listed.files.map((f) => ctx.layout.relative(f)).sort()).toEqual(
      [...LEFT_BY_CRASH.filter((rel) => /^KANBAN\/(pending|in-progress|done|scheduled|archive)\//.test(rel)), 'KANBAN/pending/.fresh.md.1.0a1b2c3d.tmp'].sort(),
    );

    // A folder the census listed is taken from its listing, not listed again: told pending/ held
    // no temp file, the sweep leaves pending/'s old one (it would have removed it had it looked).
    const lines: { msg: string; file?: string }[] = [];
    const told = { folders: listed.folders, files: listed.files.filter((f) => path.dirname(f) !== ctx.layout.pending) };
    const removed = await sweepTempFiles({ layout: ctx.layout, logger: recordingLogger(lines) }, { listed: told });
    expect(removed.sort()).toEqual(LEFT_BY_CRASH.filter((rel) => !rel.startsWith('KANBAN/pending/')).sort());
    expect(fs.existsSync(path.join(ctx.layout.pending, '.a.md.1234.0a1b2c3d.tmp'))).toBe(true);

    // Given the census's real listing, the next sweep removes the rest: the same set as a sweep that lists.
    expect(await sweepTempFiles(ctx, { listed })).toEqual(['KANBAN/pending/.a.md.1234.0a1b2c3d.tmp']);
  });

  it('runs in a tick\'s round, and a dry-run plan writes and deletes nothing', async () => {
    const { root, vault } = board();
    const ctx = await roundContext(root, NOW);
    const before = snapshotTree(vault);
    const plan = await planFromVault(ctx);
    expect(snapshotTree(vault)).toEqual(before);
    await executePlan(ctx, plan);
    for (const rel of LEFT_BY_CRASH) expect(fs.existsSync(path.join(vault, rel))).toBe(false);
    for (const rel of NOT_OURS) expect(fs.existsSync(path.join(vault, rel))).toBe(true);
  });
});
