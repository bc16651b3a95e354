import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostIdentity } from '../../src/vault/host-identity.js';
import { acquireRoundLock, isTombstoneName, lockDebris, lockPaths, type LockOwner, type LockResult } from '../../src/vault/lock.js';
import { HARDLINK_MARKER } from '../../src/vault/move-card.js';

/**
 * The round lock (src/vault/lock.ts). The races run real processes against the built module
 * (dist/vault/lock.js: `npm run build` first, as `npm test` does).
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const BUILT_LOCK = path.join(REPO, 'dist/vault/lock.js');
const RACER = path.join(import.meta.dirname, 'fixtures/lock-racer.mjs');
/** Above Linux's largest pid_max (2^22): a pid that cannot be running. */
const DEAD_PID = 2 ** 22 + 17;
const OTHER_HOST = 'another-host.example';
/** This process's host and PID namespace: what a pid is judged by. */
const HERE = hostIdentity();

const held: Extract<LockResult, { acquired: true }>[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release().catch(() => undefined);
  for (const child of children.splice(0)) child.kill();
});

function kanban(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'board-lock-')), 'KANBAN');
  for (const state of ['pending', 'in-progress', 'done']) fs.mkdirSync(path.join(dir, state), { recursive: true });
  return dir;
}

/** A lock folder as a holder leaves it, with its owner inside; `ageMs` back-dates its mtime. */
function plantLock(dir: string, owner: Partial<LockOwner> | undefined, ageMs = 0): void {
  const { lock, owner: ownerFile } = lockPaths(dir);
  fs.mkdirSync(lock);
  if (owner) fs.writeFileSync(ownerFile, JSON.stringify({ since: new Date().toISOString(), token: 'feedfacecafebeef', ...owner }));
  const at = new Date(Date.now() - ageMs);
  fs.utimesSync(lock, at, at);
}

async function acquire(dir: string, staleMs?: number): Promise<LockResult> {
  const result = await acquireRoundLock(dir, (error) => {
    throw error;
  }, staleMs ? { staleMs } : {});
  if (result.acquired) held.push(result);
  return result;
}

/** The KANBAN folder's entries, but for the hard-link marker the first lock leaves for good. */
function kanbanEntries(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n !== HARDLINK_MARKER).sort();
}

interface RacerResult {
  pid: number;
  late: number;
  acquired: boolean;
  tookOver: { from?: LockOwner; why: string } | null;
  reason: string | null;
  compromised: string[];
}

/** Several processes try the lock at one instant; each winner holds it `holdMs`. */
async function race(dir: string, racers: number, holdMs: number, staleMs?: number): Promise<{ results: RacerResult[]; log: string[] }> {
  const logFile = path.join(path.dirname(dir), 'enter-exit.log');
  fs.writeFileSync(logFile, '');
  let ready = 0;
  let allReady: () => void;
  const everyoneReady = new Promise<void>((resolve) => (allReady = resolve));
  const mine: ChildProcess[] = [];
  const runs = Array.from({ length: racers }, () => {
    const args = [RACER, BUILT_LOCK, dir, String(holdMs), logFile, ...(staleMs ? [String(staleMs)] : [])];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    mine.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      const before = out;
      out += d.toString();
      if (!before.includes('ready\n') && out.includes('ready\n') && ++ready === racers) allReady();
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise<RacerResult>((resolve, reject) =>
      child.on('close', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('result '));
        if (code === 0 && line) resolve(JSON.parse(line.slice('result '.length)) as RacerResult);
        else reject(new Error(`racer exited ${code}: ${err}`));
      }),
    );
  });
  await everyoneReady;
  const startAt = Date.now() + 200;
  for (const child of mine) child.stdin!.end(`${startAt}\n`);
  const results = await Promise.all(runs);
  return { results, log: fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) };
}

/** The O_APPEND log's order is the truth: enter and exit must alternate, one holder at a time. */
function expectNoOverlap(log: string[]): void {
  let inside: string | undefined;
  for (const line of log) {
    const [what, pid] = line.split(' ');
    if (what === 'enter') {
      expect(inside, `enter of ${pid} while ${inside} holds the lock:\n${log.join('\n')}`).toBeUndefined();
      inside = pid;
    } else {
      expect(pid).toBe(inside);
      inside = undefined;
    }
  }
  expect(inside).toBeUndefined();
}

describe('round lock: concurrent takeovers', () => {
  it.runIf(fs.existsSync(BUILT_LOCK))('of a holder that died on this host: exactly one process wins, and none overlap', async () => {
    const started = Date.now();
    for (let trial = 0; trial < 3; trial++) {
      const dir = kanban();
      plantLock(dir, { pid: DEAD_PID, ...HERE });
      const { results, log } = await race(dir, 8, 4000);
      expectNoOverlap(log);
      const winners = results.filter((r) => r.acquired);
      // Everyone tried while the winner held the lock (else a late one may fairly win after it).
      expect(Math.max(...results.map((r) => r.late))).toBeLessThan(3500);
      expect(winners).toHaveLength(1);
      // The winner is not always the one that retired the dead lock: a retirer can lose the mkdir.
      expect(results.flatMap((r) => r.compromised)).toEqual([]);
      for (const loser of results.filter((r) => !r.acquired)) expect(loser.reason).toMatch(/held by pid \d+ on this host|taking|took the lock/);
      // Released: no lock, one tombstone (the dead holder's, kept an hour), nothing else.
      const entries = kanbanEntries(dir);
      expect(entries.filter(isTombstoneName)).toEqual(['.board.lock.feedfacecafebeef.retired']);
      expect(entries.filter((n) => !isTombstoneName(n))).toEqual(['done', 'in-progress', 'pending']);
    }
    console.log(`dead-holder races: ${Date.now() - started} ms`);
  }, 60_000);

  it.runIf(fs.existsSync(BUILT_LOCK))('of a stale lock from another host (proper-lockfile\'s stale path): exactly one wins, none overlap', async () => {
    for (let trial = 0; trial < 2; trial++) {
      const dir = kanban();
      plantLock(dir, { pid: 4242, host: OTHER_HOST }, 60_000);
      // A stale limit long enough that a loaded CI machine never misses a refresh while holding.
      const { results, log } = await race(dir, 8, 4000, 20_000);
      expectNoOverlap(log);
      const winners = results.filter((r) => r.acquired);
      expect(Math.max(...results.map((r) => r.late))).toBeLessThan(3500);
      expect(winners).toHaveLength(1);
      expect(results.flatMap((r) => r.compromised)).toEqual([]);
    }
  }, 60_000);

  it.runIf(fs.existsSync(BUILT_LOCK))('of a stale lock without an owner: exactly one wins, none overlap', async () => {
    const dir = kanban();
    plantLock(dir, undefined, 60_000);
    const { results, log } = await race(dir, 8, 4000, 20_000);
    expectNoOverlap(log);
    expect(results.filter((r) => r.acquired)).toHaveLength(1);
    expect(results.flatMap((r) => r.compromised)).toEqual([]);
  }, 60_000);
});

describe('round lock: who is respected', () => {
  it('records pid, host and a token inside the lock folder, and release removes everything', async () => {
    const dir = kanban();
    const lock = await acquire(dir);
    expect(lock.acquired).toBe(true);
    const owner = JSON.parse(fs.readFileSync(lockPaths(dir).owner, 'utf8')) as LockOwner;
    expect(owner).toMatchObject({ pid: process.pid, ...HERE });
    expect(owner.token).toMatch(/^[0-9a-f]{16}$/);
    expect(fs.readdirSync(lockPaths(dir).lock)).toEqual(['owner.json']);
    await held.pop()!.release();
    expect(kanbanEntries(dir)).toEqual(['done', 'in-progress', 'pending']);
  });

  it('release removes a lock that holds more than its owner too (a temp file a broken owner write left)', async () => {
    const dir = kanban();
    const lock = await acquire(dir);
    expect(lock.acquired).toBe(true);
    fs.writeFileSync(path.join(lockPaths(dir).lock, '.owner.json.1.0a1b2c3d.tmp'), '{');
    await held.pop()!.release();
    expect(kanbanEntries(dir)).toEqual(['done', 'in-progress', 'pending']);
  });

  it('a live holder on this host is respected (and this process does not take its own lock twice)', async () => {
    const dir = kanban();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    children.push(sleeper);
    // Alive and fresh: held. (A stale lock is taken over whoever holds it: proper-lockfile's rule.)
    plantLock(dir, { pid: sleeper.pid!, ...HERE });
    const result = await acquire(dir);
    expect(result).toMatchObject({ acquired: false, holder: { pid: sleeper.pid } });
    expect(result.acquired || result.reason).toMatch(/which is running/);

    const mine = kanban();
    expect((await acquire(mine)).acquired).toBe(true);
    const again = await acquire(mine);
    expect(again.acquired).toBe(false);
  });

  it('a holder on another host is respected until stale, then taken over', async () => {
    const dir = kanban();
    plantLock(dir, { pid: 4242, host: OTHER_HOST }, 1000);
    const fresh = await acquire(dir, 2500);
    expect(fresh).toMatchObject({ acquired: false, holder: { host: OTHER_HOST } });
    expect(fresh.acquired || fresh.reason).toMatch(/taken over once not refreshed for 2.5 s/);

    const at = new Date(Date.now() - 3000);
    fs.utimesSync(lockPaths(dir).lock, at, at);
    const taken = await acquire(dir, 2500);
    expect(taken.acquired).toBe(true);
    if (taken.acquired) expect(taken.tookOver).toMatchObject({ from: { pid: 4242, host: OTHER_HOST }, why: expect.stringMatching(/^stale/) });
  });

  it('a holder that died on this host is taken over at once, even with a fresh mtime', async () => {
    const dir = kanban();
    plantLock(dir, { pid: DEAD_PID, ...HERE });
    const taken = await acquire(dir);
    expect(taken.acquired).toBe(true);
    if (taken.acquired) expect(taken.tookOver).toMatchObject({ from: { pid: DEAD_PID }, why: expect.stringMatching(/^its holder/) });
    expect(JSON.parse(fs.readFileSync(lockPaths(dir).owner, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('an owner-less lock: judged by staleness only, and the output says so', async () => {
    const dir = kanban();
    plantLock(dir, undefined, 0);
    const young = await acquire(dir);
    expect(young.acquired || young.reason).toMatch(/taking the lock \(its owner is not recorded yet\)/);

    const older = new Date(Date.now() - 10_000);
    fs.utimesSync(lockPaths(dir).lock, older, older);
    const waiting = await acquire(dir);
    expect(waiting.acquired || waiting.reason).toMatch(/no owner record .*judged by staleness only, it is taken over once not refreshed for 30 s \(last 10 s ago\)/);

    const stale = new Date(Date.now() - 31_000);
    fs.utimesSync(lockPaths(dir).lock, stale, stale);
    const taken = await acquire(dir);
    expect(taken.acquired).toBe(true);
    if (taken.acquired) expect(taken.tookOver?.why).toMatch(/^stale/);
  });

  it('an unreadable owner file is judged by staleness too; a hand-written owner without a token still works', async () => {
    const dir = kanban();
    fs.mkdirSync(lockPaths(dir).lock);
    fs.writeFileSync(lockPaths(dir).owner, '{ torn');
    const held1 = await acquire(dir);
    expect(held1.acquired || held1.reason).toMatch(/unreadable owner record/);
    const stale = new Date(Date.now() - 31_000);
    fs.utimesSync(lockPaths(dir).lock, stale, stale);
    expect((await acquire(dir)).acquired).toBe(true);

    const other = kanban();
    fs.mkdirSync(lockPaths(other).lock);
    fs.writeFileSync(lockPaths(other).owner, JSON.stringify({ pid: DEAD_PID, ...HERE }));
    expect((await acquire(other)).acquired).toBe(true);
    expect(kanbanEntries(other).filter(isTombstoneName)).toHaveLength(1);
  });

  it('release of a lock taken over meanwhile leaves the new holder alone and says so', async () => {
    const dir = kanban();
    const mine = await acquireRoundLock(dir, () => undefined, { staleMs: 2000 });
    expect(mine.acquired).toBe(true);
    if (!mine.acquired) return;
    // Another host retires it as stale (as if this process had hung) and takes the lock.
    const token = (JSON.parse(fs.readFileSync(lockPaths(dir).owner, 'utf8')) as LockOwner).token!;
    fs.renameSync(lockPaths(dir).lock, path.join(dir, `.board.lock.${token}.retired`));
    plantLock(dir, { pid: 4242, host: OTHER_HOST, token: '0123456789abcdef' });
    await expect(mine.release()).rejects.toThrow(/no longer ours/);
    expect(JSON.parse(fs.readFileSync(lockPaths(dir).owner, 'utf8'))).toMatchObject({ host: OTHER_HOST });
  });

  it('removes the owner file older boards kept beside the folder; keeps recent tombstones', async () => {
    const dir = kanban();
    fs.writeFileSync(path.join(dir, '.board.lock.owner.json'), '{}');
    const recent = path.join(dir, '.board.lock.00000000000000bb.retired');
    fs.mkdirSync(recent);
    fs.writeFileSync(path.join(recent, 'owner.json'), '{}');
    const lock = await acquire(dir);
    expect(lock.acquired).toBe(true);
    expect(fs.existsSync(path.join(dir, '.board.lock.owner.json'))).toBe(false);
    // Kept an hour (by its mtime and ctime; ctime cannot be back-dated here, so pruning is not tested).
    expect(fs.existsSync(recent)).toBe(true);
  });
});

describe('round lock: which host (CONTRACT "Which host")', () => {
  it('a holder with this hostname in another PID namespace (a container) is judged by time, not by its pid', async () => {
    const dir = kanban();
    // DEAD_PID means nothing in that namespace's terms here: the lock must not be taken over at once.
    plantLock(dir, { pid: DEAD_PID, host: HERE.host, pidns: 'pid:[1]' }, 1000);
    const fresh = await acquire(dir, 2500);
    expect(fresh).toMatchObject({ acquired: false, holder: { pid: DEAD_PID, pidns: 'pid:[1]' } });
    expect(fresh.acquired || fresh.reason).toMatch(/another PID namespace.*taken over once not refreshed for 2.5 s/);
    const at = new Date(Date.now() - 3000);
    fs.utimesSync(lockPaths(dir).lock, at, at);
    const taken = await acquire(dir, 2500);
    expect(taken).toMatchObject({ acquired: true, tookOver: { why: expect.stringMatching(/^stale/) as unknown } });
  });

  it('an owner recorded without a PID namespace (an older board) is judged by time where this host has one', async () => {
    if (HERE.pidns === undefined) return; // no /proc namespaces here: the hostname decides, as the test above covers
    const dir = kanban();
    plantLock(dir, { pid: DEAD_PID, host: HERE.host });
    expect((await acquire(dir)).acquired).toBe(false);
  });

  it('records the PID namespace with the host in its owner', async () => {
    const dir = kanban();
    expect((await acquire(dir)).acquired).toBe(true);
    expect(JSON.parse(fs.readFileSync(lockPaths(dir).owner, 'utf8'))).toMatchObject({ host: HERE.host, ...(HERE.pidns ? { pidns: HERE.pidns } : {}) });
  });
});

describe('round lock: debris a round cannot judge is reported, never skipped in silence', () => {
  const expectRefused = async (dir: string, what: RegExp) => {
    const message = await lockDebris(dir);
    expect(message).toMatch(what);
    expect(message).toContain(lockPaths(dir).lock);
    expect(message).toMatch(/remove it: rm -rf/);
    await expect(acquire(dir)).rejects.toThrow(what);
  };

  it('a dangling symbolic link', async () => {
    const dir = kanban();
    fs.symlinkSync(path.join(dir, 'nowhere'), lockPaths(dir).lock);
    await expectRefused(dir, /is a dangling symbolic link \(to .*nowhere\)/);
  });

  it('a symbolic link to a folder', async () => {
    const dir = kanban();
    fs.symlinkSync(path.join(dir, 'done'), lockPaths(dir).lock);
    await expectRefused(dir, /is a symbolic link \(to .*done\), not the board's lock folder/);
  });

  it('a regular file', async () => {
    const dir = kanban();
    fs.writeFileSync(lockPaths(dir).lock, 'junk');
    await expectRefused(dir, /is a regular file, not the board's lock folder/);
  });

  it.skipIf(process.getuid?.() === 0)('a folder the board cannot read', async () => {
    const dir = kanban();
    fs.mkdirSync(lockPaths(dir).lock, { mode: 0o000 });
    try {
      expect(await lockDebris(dir)).toMatch(/is a folder the board cannot read \(EACCES\)/);
    } finally {
      fs.chmodSync(lockPaths(dir).lock, 0o755);
    }
  });

  it('nothing to say about an absent lock or a lock folder', async () => {
    const dir = kanban();
    expect(await lockDebris(dir)).toBeUndefined();
    plantLock(dir, { pid: 4242, host: OTHER_HOST });
    expect(await lockDebris(dir)).toBeUndefined();
  });
});
