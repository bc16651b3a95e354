import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { MoveClashError } from './move-card.js';
import { BOARD_RECORD_MAX_BYTES, readBoardText } from './board-file.js';
import { hostIdentity, sameProcessSpace } from './host-identity.js';
import { isProcessAlive } from './process-alive.js';
import { ensureFolder, removeFile } from './file-ops.js';

/**
 * The card's transition lock: one change of a card at a time, on the board itself so it holds
 * between processes and between hosts sharing the board (docs/transitions.md).
 *
 * Layout. `KANBAN/.locks/<sha1 of the card name>/owner.json`. A lock is created by renaming a
 * populated temp folder onto that name: rename(2) onto a non-empty folder fails, so creation is
 * exclusive and the owner is never missing from a lock (no owner-less window to judge). The hash
 * keeps the name short whatever the card's name (255-byte names fit).
 *
 * Staleness. A holder is judged dead only by a process on the same host and in the same PID
 * namespace; otherwise only time decides: a transition takes milliseconds, so a lock older than
 * `staleMs` by its owner's `since` belongs to a holder that died (clocks in sync, as every shared
 * board needs). A stale lock is never removed in place: it is renamed to a tombstone named after
 * its owner's token (`<hash>.<token>.retired`), which a second, late retirer of the same lock
 * cannot do again (the tombstone exists and is not empty), so it can never move a fresh lock.
 *
 * Intent. A close writes its outcome (`closed`) into its lock's owner before it edits: a close
 * that dies between its edit and its move leaves that intent, and only such an intent lets a
 * round finish the close (a `closed` field alone is never trusted: a card can forge it).
 */

export const CARD_LOCK_STALE_MS = 30_000;
const TOMBSTONE_KEEP_MS = 60 * 60_000;

export interface CardLockOwner {
  readonly card: string;
  /** What the holder is doing: `close`, `fail`, `claim` … (shown to a refused racer). */
  readonly op: string;
  readonly pid: number;
  readonly host: string;
  readonly pidns?: string;
  readonly since: string;
  readonly token: string;
  /** A close's `closed` value, written before the close edits the card. */
  readonly closed?: string;
}

export interface CardLockOptions {
  /** How long to wait for a live holder before giving up (0: try once). */
  readonly waitMs?: number;
  readonly staleMs?: number;
  /** A close's outcome, recorded in the lock before the card is edited (see Intent above). */
  readonly closed?: string;
  /** The wall clock for `since` and staleness; tests pass their own. */
  readonly clock?: () => number;
}

export class CardBusyError extends Error {
  constructor(
    readonly card: string,
    readonly holder: CardLockOwner | undefined,
  ) {
    super(
      holder
        ? `another change of ${card} is under way (${holder.op} by pid ${holder.pid} on ${holder.host} since ${holder.since}): nothing written`
        : `another change of ${card} is under way: nothing written`,
    );
    this.name = 'CardBusyError';
  }
}

export interface HeldCardLock {
  readonly owner: CardLockOwner;
  /** Throws unless this lock is still ours (re-checked right before each write). */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
  /** Set when acquiring retired a stale lock: its owner, so an interrupted close can be finished. */
  readonly retired?: CardLockOwner;
  /** The live holder this taker waited for, if any: the change that came first. */
  readonly waitedFor?: CardLockOwner;
}

export function locksDir(kanbanDir: string): string {
  return path.join(kanbanDir, '.locks');
}

export function cardLockPath(kanbanDir: string, card: string): string {
  return path.join(locksDir(kanbanDir), createHash('sha1').update(card).digest('hex'));
}

const TOMBSTONE = /^[0-9a-f]{40}\.[0-9a-f]{16}\.retired$/;
const TEMP = /^\.new\.[0-9a-f]{16}$/;

export async function readCardLockOwner(lockDir: string): Promise<CardLockOwner | undefined> {
  try {
    const owner = JSON.parse(await readBoardText(path.join(lockDir, 'owner.json'), { maxBytes: BOARD_RECORD_MAX_BYTES })) as CardLockOwner;
    return typeof owner.token === 'string' && typeof owner.card === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Why a lock's holder can be presumed gone, or undefined while it may still be working. */
export function staleness(owner: CardLockOwner, now: number, staleMs = CARD_LOCK_STALE_MS): string | undefined {
  if (sameProcessSpace(owner) && !isProcessAlive(owner.pid)) return `its holder (pid ${owner.pid}) is gone`;
  if (sameProcessSpace(owner)) return undefined;
  const age = now - Date.parse(owner.since);
  if (!(age <= staleMs)) return `held from ${owner.host} for ${Math.round(age / 1000)} s (stale after ${staleMs / 1000} s)`;
  return undefined;
}

function isHeldCode(code: string | undefined): boolean {
  // A rename onto a non-empty folder: ENOTEMPTY or EEXIST by POSIX; sshfs and some FUSE
  // filesystems say EPERM.
  return code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM';
}

export async function pathExists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Try once to create the lock: true when created, false when someone held it at that moment (it
 * may be gone already: the caller looks again). An EPERM is taken for a held lock only while the
 * lock, or the memory of one, is there: `permRetries` bounds how often an unexplained EPERM (a
 * real permission problem) is retried before it is thrown.
 */
async function tryCreate(lock: string, owner: CardLockOwner, permRetries: { left: number }): Promise<boolean> {
  const temp = path.join(path.dirname(lock), `.new.${owner.token}`);
  // Not recursive (its parent exists): Node's recursive mkdir says ENOENT on a read-only
  // filesystem, where a plain one says EROFS.
  await fs.mkdir(temp).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await fs.writeFile(path.join(temp, 'owner.json'), `${JSON.stringify(owner)}\n`, { flag: 'wx' });
  try {
    await fs.rename(temp, lock);
    return true;
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    if (code === 'EPERM' && ((await pathExists(lock)) || permRetries.left-- > 0)) return false;
    throw error;
  }
}

/** Retire a stale lock judged by its owner: true when this caller moved exactly that lock away. */
async function retire(lock: string, judged: CardLockOwner): Promise<boolean> {
  // Named after the judged owner's token (hashed: a hand-written token could hold anything).
  const tomb = `${lock}.${createHash('sha1').update(judged.token).digest('hex').slice(0, 16)}.retired`;
  try {
    await fs.rename(lock, tomb);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || isHeldCode(code)) return false;
    throw error;
  }
  const moved = await readCardLockOwner(tomb);
  if (moved?.token === judged.token) return true;
  // Not the lock we judged (it cannot happen while tombstones are kept, but never keep a live
  // holder's lock away from it): put it back if its name is still free.
  await fs.rename(tomb, lock).catch(() => undefined);
  return false;
}

/**
 * Take the card's transition lock, waiting up to `waitMs` for a live holder. Throws CardBusyError
 * when the card stays held.
 */
export async function acquireCardLock(kanbanDir: string, card: string, op: string, options: CardLockOptions = {}): Promise<HeldCardLock> {
  const clock = options.clock ?? Date.now;
  const staleMs = options.staleMs ?? CARD_LOCK_STALE_MS;
  const lock = cardLockPath(kanbanDir, card);
  const here = hostIdentity();
  const owner: CardLockOwner = {
    card,
    op,
    pid: process.pid,
    host: here.host,
    ...(here.pidns !== undefined ? { pidns: here.pidns } : {}),
    since: new Date(clock()).toISOString(),
    token: randomBytes(8).toString('hex'),
    ...(options.closed !== undefined ? { closed: options.closed } : {}),
  };
  await fs.mkdir(locksDir(kanbanDir)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const deadline = Date.now() + (options.waitMs ?? 0);
  let retired: CardLockOwner | undefined;
  let holder: CardLockOwner | undefined;
  let waitedFor: CardLockOwner | undefined;
  const permRetries = { left: 3 };
  for (let round = 0; ; round += 1) {
    if (await tryCreate(lock, owner, permRetries)) break;
    holder = await readCardLockOwner(lock);
    if (holder && staleness(holder, clock(), staleMs) !== undefined) {
      if (await retire(lock, holder)) retired = holder;
      continue;
    }
    if (!holder && (await pathExists(lock))) {
      // A lock folder with no readable owner: not one this board made (creation is populated).
      // Judge it by its age alone.
      const stat = await fs.lstat(lock).catch(() => undefined);
      if (stat && clock() - stat.mtimeMs > staleMs) {
        await fs.rename(lock, `${lock}.${randomBytes(8).toString('hex')}.retired`).catch(() => undefined);
        continue;
      }
    }
    if (Date.now() >= deadline) throw new CardBusyError(card, holder);
    waitedFor = holder ?? waitedFor;
    await new Promise((resolve) => setTimeout(resolve, Math.min(10 + round * 10, 100)));
  }
  const held: HeldCardLock = {
    owner,
    ...(retired ? { retired } : {}),
    ...(waitedFor ? { waitedFor } : {}),
    async assertHeld() {
      const now = await readCardLockOwner(lock);
      if (now?.token !== owner.token) throw new CardBusyError(card, now);
    },
    async release() {
      const now = await readCardLockOwner(lock);
      if (now?.token !== owner.token) return;
      // Empty it, then remove it: a racer's rename onto the emptied folder replaces it, and our
      // rmdir then fails on its non-empty lock instead of removing it.
      await removeFile(path.join(lock, 'owner.json'));
      await fs.rmdir(lock).catch(() => undefined);
    },
  };
  return held;
}

/** Run `work` holding the card's lock; the lock is released whatever happens. */
export async function withCardLock<T>(
  kanbanDir: string,
  card: string,
  op: string,
  options: CardLockOptions,
  work: (lock: HeldCardLock) => Promise<T>,
): Promise<T> {
  const lock = await acquireCardLock(kanbanDir, card, op, options);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}

/** Stale card locks that carry a close's intent: the closes a round may finish. */
export async function interruptedCloses(kanbanDir: string, now: number, staleMs = CARD_LOCK_STALE_MS): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = await fs.readdir(locksDir(kanbanDir));
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^[0-9a-f]{40}$/.test(name)) continue;
    const owner = await readCardLockOwner(path.join(locksDir(kanbanDir), name));
    if (owner?.op === 'close' && owner.closed !== undefined && staleness(owner, now, staleMs) !== undefined) out.set(owner.card, owner.closed);
  }
  return out;
}

/**
 * Remove what dead holders left in `.locks/`: tombstones and temp folders older than an hour, and
 * stale locks with no close to finish (their card moved on long ago). Returns what it removed.
 */
export async function sweepCardLocks(kanbanDir: string, now: number): Promise<string[]> {
  const dir = locksDir(kanbanDir);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    const stat = await fs.lstat(full).catch(() => undefined);
    if (!stat) continue;
    const old = now - stat.mtimeMs > TOMBSTONE_KEEP_MS;
    if ((TOMBSTONE.test(name) || TEMP.test(name)) && old) {
      await fs.rm(full, { recursive: true, force: true });
      removed.push(name);
    } else if (/^[0-9a-f]{40}$/.test(name) && old) {
      const owner = await readCardLockOwner(full);
      if (owner && owner.op !== 'close' && staleness(owner, now) !== undefined && (await retire(full, owner))) removed.push(name);
    }
  }
  return removed;
}

/**
 * Move a card to another state folder under its lock. rename(2) makes the move atomic (the card is
 * never under two folders, not even for an instant); it would replace a file already at the
 * destination, so the destination is checked first, under the lock every board writer of that
 * name takes. A name clash is reported and neither file is touched.
 */
export async function moveCardLocked(lock: HeldCardLock, from: string, to: string): Promise<void> {
  if (await pathExists(to)) throw new MoveClashError(from, to);
  await lock.assertHeld();
  await ensureFolder(path.dirname(to));
  await fs.rename(from, to);
}
