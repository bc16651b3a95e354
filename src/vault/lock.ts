import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from './atomic-write.js';

/**
 * The round's lock: one round at a time per vault, for ticks and watchers on any host sharing
 * it. proper-lockfile keeps the lock fresh (mtime) while held; beside it an owner file records
 * pid and host, so a lock left by a process that died on this host is taken over at once
 * instead of after the stale period. The claim itself never relies on the lock: claiming is an
 * exclusive move, so even two overlapping rounds could not claim one card twice.
 */

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

export type LockResult =
  | { acquired: true; release: () => Promise<void>; tookOverFrom?: LockOwner }
  | { acquired: false; holder?: LockOwner };

const STALE_MS = 30_000;

export function lockPaths(kanbanDir: string): { target: string; lock: string; owner: string } {
  return {
    target: kanbanDir,
    lock: path.join(kanbanDir, '.board.lock'),
    owner: path.join(kanbanDir, '.board.lock.owner.json'),
  };
}

export async function readLockOwner(ownerFile: string): Promise<LockOwner | undefined> {
  try {
    const data = JSON.parse(await fs.readFile(ownerFile, 'utf8')) as Partial<LockOwner>;
    if (typeof data.pid === 'number' && typeof data.host === 'string') {
      return { pid: data.pid, host: data.host, since: String(data.since ?? '') };
    }
  } catch {
    // Missing or torn owner file: fall back to proper-lockfile's staleness rule.
  }
  return undefined;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function acquireRoundLock(
  kanbanDir: string,
  onCompromised: (error: Error) => void,
): Promise<LockResult> {
  const paths = lockPaths(kanbanDir);
  const options = {
    lockfilePath: paths.lock,
    realpath: false,
    stale: STALE_MS,
    update: STALE_MS / 3,
    retries: 0,
    // The default throws from a timer and would crash the process; report instead.
    onCompromised,
  };
  let tookOverFrom: LockOwner | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(paths.target, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const holder = await readLockOwner(paths.owner);
    if (!holder || holder.host !== os.hostname() || holder.pid === process.pid || isProcessAlive(holder.pid)) {
      return { acquired: false, ...(holder ? { holder } : {}) };
    }
    // The holder died on this host: take the lock over now rather than after the stale period.
    await fs.rmdir(paths.lock).catch(() => undefined);
    try {
      release = await lockfile.lock(paths.target, options);
    } catch (retryError) {
      if ((retryError as NodeJS.ErrnoException).code === 'ELOCKED') return { acquired: false, holder: (await readLockOwner(paths.owner)) ?? holder };
      throw retryError;
    }
    tookOverFrom = holder;
  }
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  await writeFileAtomic(paths.owner, `${JSON.stringify(owner)}\n`);
  return {
    acquired: true,
    ...(tookOverFrom ? { tookOverFrom } : {}),
    release: async () => {
      await fs.rm(paths.owner, { force: true });
      await release();
    },
  };
}
