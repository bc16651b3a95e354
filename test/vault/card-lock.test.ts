import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acquireCardLock,
  CardBusyError,
  cardLockPath,
  interruptedCloses,
  readCardLockOwner,
  sweepCardLocks,
  type CardLockOwner,
} from '../../src/vault/card-lock.js';
import { hostIdentity } from '../../src/vault/host-identity.js';

function kanban(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'card-lock-'));
  fs.mkdirSync(path.join(dir, 'KANBAN'));
  return path.join(dir, 'KANBAN');
}

/** A lock as another process left it. */
function plant(k: string, card: string, owner: Partial<CardLockOwner>): string {
  const lock = cardLockPath(k, card);
  fs.mkdirSync(lock, { recursive: true });
  const full: CardLockOwner = { card, op: 'fail', pid: process.pid, ...hostIdentity(), since: new Date().toISOString(), token: 'aaaaaaaaaaaaaaaa', ...owner };
  fs.writeFileSync(path.join(lock, 'owner.json'), JSON.stringify(full));
  return lock;
}

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('the card transition lock', () => {
  it('is exclusive: a second taker waits, then is refused naming the holder; after release it is free', async () => {
    const k = kanban();
    const first = await acquireCardLock(k, 'x.md', 'close');
    const refused = await acquireCardLock(k, 'x.md', 'fail', { waitMs: 50 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CardBusyError);
    expect((refused as Error).message).toContain(`close by pid ${process.pid}`);
    await first.release();
    expect(fs.existsSync(cardLockPath(k, 'x.md'))).toBe(false);
    const second = await acquireCardLock(k, 'x.md', 'fail');
    await second.release();
  });

  it('a waiting taker gets the lock as soon as the holder releases it', async () => {
    const k = kanban();
    const first = await acquireCardLock(k, 'x.md', 'close');
    setTimeout(() => void first.release(), 100);
    const second = await acquireCardLock(k, 'x.md', 'fail', { waitMs: 5_000 });
    expect(second.owner.op).toBe('fail');
    // It knows which change came first, so a verb refused after waiting can say what won.
    expect(second.waitedFor).toMatchObject({ op: 'close', pid: process.pid });
    await second.release();
  });

  it('many concurrent takers: exactly one holds it at any time', async () => {
    const k = kanban();
    let holders = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        const lock = await acquireCardLock(k, 'x.md', 'note', { waitMs: 10_000 });
        holders += 1;
        most = Math.max(most, holders);
        await new Promise((r) => setTimeout(r, 5));
        holders -= 1;
        await lock.release();
      }),
    );
    expect(most).toBe(1);
  });

  it('a dead holder on this host (same PID namespace) is taken over at once, its lock retired to a tombstone', async () => {
    const k = kanban();
    plant(k, 'x.md', { pid: deadPid(), op: 'close', closed: '2026-12-02T10:00:00.000Z' });
    const lock = await acquireCardLock(k, 'x.md', 'close');
    expect(lock.retired).toMatchObject({ op: 'close', closed: '2026-12-02T10:00:00.000Z' });
    expect(fs.readdirSync(path.join(k, '.locks')).filter((n) => n.endsWith('.retired'))).toHaveLength(1);
    await lock.release();
  });

  it('a live holder of another host is waited for, until it is stale by its own start time', async () => {
    const k = kanban();
    plant(k, 'x.md', { host: 'another-host', pid: 1 });
    await expect(acquireCardLock(k, 'x.md', 'fail', { waitMs: 50 })).rejects.toBeInstanceOf(CardBusyError);
    const later = Date.now() + 31_000;
    const lock = await acquireCardLock(k, 'x.md', 'fail', { clock: () => later });
    expect(lock.retired?.host).toBe('another-host');
    await lock.release();
  });

  it('a holder with the same hostname in another PID namespace is judged by time, never by its pid', async () => {
    const k = kanban();
    plant(k, 'x.md', { pid: deadPid(), pidns: 'pid:[1]' });
    await expect(acquireCardLock(k, 'x.md', 'fail', { waitMs: 50 })).rejects.toBeInstanceOf(CardBusyError);
  });

  it('a holder taken over as stale can no longer write (assertHeld) and its release leaves the new lock alone', async () => {
    const k = kanban();
    const stale = await acquireCardLock(k, 'x.md', 'fail');
    const later = Date.now() + 31_000;
    // Seen from another host whose clock says the lock is 31 s old.
    const owner = await readCardLockOwner(cardLockPath(k, 'x.md'));
    fs.writeFileSync(path.join(cardLockPath(k, 'x.md'), 'owner.json'), JSON.stringify({ ...owner, host: 'another-host' }));
    const winner = await acquireCardLock(k, 'x.md', 'close', { clock: () => later });
    await expect(stale.assertHeld()).rejects.toBeInstanceOf(CardBusyError);
    await stale.release();
    expect((await readCardLockOwner(cardLockPath(k, 'x.md')))?.token).toBe(winner.owner.token);
    await winner.release();
  });

  it('lists only stale locks holding a close intent as interrupted closes', async () => {
    const k = kanban();
    plant(k, 'a.md', { pid: deadPid(), op: 'close', closed: 'A' });
    plant(k, 'b.md', { pid: process.pid, op: 'close', closed: 'B' });
    plant(k, 'c.md', { pid: deadPid(), op: 'fail' });
    expect(await interruptedCloses(k, Date.now())).toEqual(new Map([['a.md', 'A']]));
  });

  it('the sweep removes old dead locks and tombstones, never a close still to finish or a live lock', async () => {
    const k = kanban();
    const dead = plant(k, 'a.md', { pid: deadPid(), op: 'fail' });
    const close = plant(k, 'b.md', { pid: deadPid(), op: 'close', closed: 'B' });
    const live = plant(k, 'c.md', { op: 'note' });
    const tomb = `${dead}.0123456789abcdef.retired`;
    fs.mkdirSync(tomb);
    const old = new Date(Date.now() - 2 * 3_600_000);
    for (const p of [dead, close, live, tomb]) fs.utimesSync(p, old, old);
    const removed = await sweepCardLocks(k, Date.now());
    expect(removed.sort()).toEqual([path.basename(dead), path.basename(tomb)].sort());
    expect(fs.existsSync(close) && fs.existsSync(live)).toBe(true);
  });

  it('keeps lock names short whatever the card name (a 250-byte name)', async () => {
    const k = kanban();
    const name = `${'x'.repeat(247)}.md`;
    const lock = await acquireCardLock(k, name, 'claim');
    expect(path.basename(cardLockPath(k, name))).toHaveLength(40);
    await lock.release();
  });
});
