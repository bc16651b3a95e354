import { randomBytes } from 'node:crypto';
import fsCallback from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { createFileExclusive, isBoardTempName } from './atomic-write.js';
import { removeFile } from './file-ops.js';
import { BOARD_RECORD_MAX_BYTES, BoardFileError, readBoardFileSync, readBoardText } from './board-file.js';
import { hostIdentity, sameProcessSpace } from './host-identity.js';
import { assertHardLinks } from './move-card.js';
import { isProcessAlive } from './process-alive.js';

/**
 * The round's lock: one round at a time per vault, for ticks and watchers on any host sharing it.
 *
 * Layout. `KANBAN/.board.lock/` is proper-lockfile's lock folder (created with mkdir, its mtime
 * refreshed while held); `KANBAN/.board.lock/owner.json` inside it records pid, host, PID
 * namespace and a random token (a pid is judged only from the same host and PID namespace:
 * host-identity.ts; from anywhere else only the lock's staleness decides). Lock and owner are one thing: the owner is written (exclusively, never torn) between the
 * mkdir and proper-lockfile's first mtime probe, inside the folder, so nothing can remove one
 * without the other and a holder never "acquires" without its owner on disk.
 *
 * Takeover. A lock is never removed in place. Whoever retires a lock (a dead holder on this host,
 * at once; a stale one, by proper-lockfile's mtime rule, after `stale`) renames the whole folder to
 * a tombstone named after the owner's token, `KANBAN/.board.lock.<token>.retired`, and only then
 * competes for a fresh mkdir like everyone else. rename(2) onto a non-empty folder fails, and the
 * tombstone keeps the dead owner's file, so a second process that judged the same dead lock and
 * comes late finds the tombstone taken and renames nothing: it can never move the fresh lock that
 * the first one (or anyone) has created since. That is the race the old remove-then-mkdir had
 * (and proper-lockfile's own stale path has, upstream issue #121). Tombstones are kept an hour
 * so a late retirer still bumps into them, then pruned by the next holder.
 *
 * proper-lockfile is given an `fs` whose `mkdir` writes the owner, whose `rmdir` of the lock folder
 * is this tombstone retirement (its stale path, used for other hosts' locks) or, for our own lock,
 * a token-checked removal (release; `rmdirSync` on process exit), and whose other calls are plain.
 * The claim itself never relies on the lock: claiming is an exclusive move, so even two overlapping
 * rounds could not claim one card twice.
 */

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** The holder's PID namespace (`pid:[…]`): its pid is judged only in the same one (CONTRACT "Which host"). */
  readonly pidns?: string;
  readonly since: string;
  /** Unique per acquisition; absent only in a hand-written or foreign owner file. */
  readonly token?: string;
}

export interface LockOptions {
  /** Staleness for locks this host cannot judge by pid. Tests pass a short one; production keeps 30 s. */
  readonly staleMs?: number;
}

export type LockResult =
  | { acquired: true; release: () => Promise<void>; tookOver?: { readonly from?: LockOwner; readonly why: string } }
  | { acquired: false; holder?: LockOwner; reason: string };

export const STALE_MS = 30_000;
/** An owner-less lock younger than this is someone between mkdir and writing its owner. */
const OWNERLESS_GRACE_MS = 5_000;
const TOMBSTONE_KEEP_MS = 60 * 60_000;
const TOMBSTONE = /^\.board\.lock\.(?:[0-9a-f]{16}|x\d+)\.retired$/;

export interface LockPaths {
  readonly target: string;
  readonly lock: string;
  readonly owner: string;
}

export function lockPaths(kanbanDir: string): LockPaths {
  const lock = path.join(kanbanDir, '.board.lock');
  return { target: kanbanDir, lock, owner: path.join(lock, 'owner.json') };
}

/** Where boards before this one kept the owner, beside the folder: removed by the next holder. */
const LEGACY_OWNER = '.board.lock.owner.json';

function tombstoneOf(kanbanDir: string, id: string): string {
  return path.join(kanbanDir, `.board.lock.${id}.retired`);
}

export function isTombstoneName(name: string): boolean {
  return TOMBSTONE.test(name);
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const data = JSON.parse(text) as Partial<LockOwner>;
    if (typeof data.pid === 'number' && typeof data.host === 'string') {
      return {
        pid: data.pid,
        host: data.host,
        ...(typeof data.pidns === 'string' ? { pidns: data.pidns } : {}),
        since: String(data.since ?? ''),
        ...(typeof data.token === 'string' ? { token: data.token } : {}),
      };
    }
  } catch {
    // A foreign or hand-edited file: no owner we can judge by pid.
  }
  return undefined;
}

/** The owner recorded in a lock (or tombstone) folder; undefined when missing or unreadable. */
export async function readLockOwner(ownerFile: string): Promise<LockOwner | undefined> {
  return (await readOwnerFile(ownerFile)).owner;
}

async function readOwnerFile(ownerFile: string): Promise<{ file: boolean; owner?: LockOwner }> {
  try {
    const owner = parseOwner(await readBoardText(ownerFile, { maxBytes: BOARD_RECORD_MAX_BYTES }));
    return { file: true, ...(owner ? { owner } : {}) };
  } catch (error) {
    if (isCode(error, 'ENOTDIR', ...GONE)) return { file: false };
    // A link or a FIFO in its place: no owner the board can judge by pid (staleness decides).
    if (error instanceof BoardFileError) return { file: true };
    throw error;
  }
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** A name that vanished under us; NFS says ESTALE for a folder removed by another client. */
const GONE = ['ENOENT', 'ESTALE'];

/**
 * Did renaming the lock folder to a tombstone fail because another process won the race? Locally
 * that is ENOENT (the lock is gone) or EEXIST/ENOTEMPTY (the tombstone exists). sshfs reports any
 * SFTP failure as EPERM, and NFS a folder removed meanwhile as ESTALE: those count as the race only
 * when the names show it (the lock gone or the tombstone there); otherwise the error is real.
 */
async function lostRename(error: unknown, lock: string, tombstone: string): Promise<boolean> {
  if (isCode(error, 'ENOENT', 'EEXIST', 'ENOTEMPTY')) return true;
  if (!isCode(error, 'EPERM', 'ESTALE', 'EACCES', 'EBUSY')) return false;
  const there = (p: string) => fs.lstat(p).then(() => true, (e: unknown) => (isCode(e, ...GONE) ? false : Promise.reject(e)));
  return !(await there(lock)) || (await there(tombstone));
}

function ownerText(owner: LockOwner): string {
  return `${JSON.stringify(owner)}\n`;
}

/** What is at the lock's path right now. */
interface Look {
  readonly ino: number;
  readonly mtimeMs: number;
  /** An owner file exists (readable or not). */
  readonly ownerFile: boolean;
  readonly owner?: LockOwner;
}

async function inspect(folder: string): Promise<Look | undefined> {
  // The mtime and the owner must be of one folder: a lock retired and replaced between the two
  // reads would pair the dead lock's old mtime with the new holder's owner, and a stale judgement
  // would then retire a live lock (to its own token's tombstone, so the check after the rename
  // passes). So the owner is read on both sides of the stat: the same owner twice (or none twice)
  // means the stat was of its folder; a difference means the name changed hands meanwhile: look
  // again. (Not the inode: sshfs numbers a folder anew once the kernel forgets it.)
  const ownerFile = path.join(folder, 'owner.json');
  for (let attempt = 0; ; attempt++) {
    const first = await readOwnerFile(ownerFile);
    let stat;
    try {
      stat = await fs.stat(folder);
    } catch (error) {
      if (isCode(error, ...GONE)) return undefined;
      throw error;
    }
    const { file, owner } = await readOwnerFile(ownerFile);
    const look = { ino: stat.ino, mtimeMs: stat.mtimeMs, ownerFile: file, ...(owner ? { owner } : {}) };
    if (first.file === file && sameOwner(first.owner, owner)) return look;
    // Still changing after several looks: a lock being taken right now, and fresh by its mtime.
    if (attempt >= 3) return { ino: stat.ino, mtimeMs: stat.mtimeMs, ownerFile: true };
  }
}

function sameOwner(a: LockOwner | undefined, b: LockOwner | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

/** A judge says why a lock may be retired, or undefined to keep it. */
type Judge = (look: Look) => string | undefined;

function deadHolder(look: Look): string | undefined {
  const o = look.owner;
  // Another host's pid, or another container's with our hostname, means nothing here: time decides.
  if (!o || !sameProcessSpace(o) || o.pid === process.pid || isProcessAlive(o.pid)) return undefined;
  return `its holder (pid ${o.pid} on ${o.host}) died`;
}

function staleLock(staleMs: number): Judge {
  return (look) => {
    const age = Date.now() - look.mtimeMs;
    return age > staleMs ? `stale: not refreshed for ${Math.round(age / 1000)} s (limit ${staleMs / 1000} s)` : undefined;
  };
}

type Retirement =
  | { readonly kind: 'gone' }
  | { readonly kind: 'kept'; readonly look?: Look }
  | { readonly kind: 'retired'; readonly look: Look; readonly why: string }
  | { readonly kind: 'compromised'; readonly message: string };

/**
 * Retire the lock at `paths.lock` if `judge` says so: rename it to its tombstone, then check the
 * tombstone holds what was judged. Never removes a lock in place.
 *
 * The tombstone is named after the judged owner's token, so the rename itself is the
 * compare-and-swap: it succeeds only while no tombstone of that token exists, i.e. while nobody
 * has retired the judged lock yet, and a lock folder appears at `.board.lock` only by mkdir into a
 * free name, which needs the judged one retired first. So a successful rename moved the judged
 * lock. The check after it is a second line for what that argument leaves out (a tombstone pruned
 * under a retirer that stalled for an hour; an owner file without a token, named by inode): if the
 * tombstone holds another lock, it is a live one that was grabbed, and it is put back by the
 * reverse rename, at once, while `.board.lock` is almost surely still free (its holder's lock was
 * missing for microseconds; proper-lockfile notices only if its refresh fell exactly then, and
 * then reports it as compromised). If the name was taken meanwhile, the grabbed holder's next
 * refresh finds a folder that is not its own and reports its lock compromised (its round stops
 * with an error at the end); this process reports `compromised` and does not take the lock.
 *
 * An owner-less lock (a crash between mkdir and writing the owner, or a board from before the
 * owner moved inside) can be judged by mtime only. Its retirer first writes its own marker as the
 * owner (exclusive create), which gives the tombstone a token and a non-empty folder; a creator
 * that was in fact still about to write its owner then fails to (EEXIST) and does not take the
 * lock, so an owner-less folder is never a live holder's.
 */
async function retire(paths: LockPaths, judge: Judge): Promise<Retirement> {
  let look: Look | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    look = await inspect(paths.lock);
    if (!look) return { kind: 'gone' };
    const why = judge(look);
    if (!why) return { kind: 'kept', look };
    let token = look.owner?.token;
    if (!look.ownerFile) {
      const marker: LockOwner = { pid: process.pid, ...hostIdentity(), since: new Date().toISOString(), token: newToken() };
      try {
        await createFileExclusive(paths.owner, ownerText(marker));
      } catch (error) {
        if (isCode(error, 'EEXIST')) continue; // its owner (or another retirer's marker) just arrived: judge again
        if (isCode(error, ...GONE)) return { kind: 'gone' };
        throw error;
      }
      token = marker.token;
    }
    const id = token ?? `x${look.ino}`;
    const tombstone = tombstoneOf(paths.target, id);
    try {
      await fs.rename(paths.lock, tombstone);
    } catch (error) {
      // Gone, or already retired by someone else (its tombstone exists): compete for the name.
      if (await lostRename(error, paths.lock, tombstone)) return { kind: 'gone' };
      throw error;
    }
    const moved = await inspect(tombstone);
    const same = moved !== undefined && (token ? moved.owner?.token === token : moved.ino === look.ino);
    if (same) {
      // A dead lock's mtime is old and rename keeps it: date the tombstone from now for pruning.
      const now = new Date();
      await fs.utimes(tombstone, now, now).catch(() => undefined);
      return { kind: 'retired', look, why };
    }
    try {
      await fs.rename(tombstone, paths.lock);
      return { kind: 'kept', ...(moved ? { look: moved } : {}) };
    } catch (error) {
      const who = moved?.owner ? `pid ${moved.owner.pid} on ${moved.owner.host}` : 'an unknown holder';
      return { kind: 'compromised', message: `retiring a dead lock moved the live lock of ${who} to ${tombstone} and could not put it back (${(error as Error).message})` };
    }
  }
  return { kind: 'kept', ...(look ? { look } : {}) };
}

/** Remove our own lock: rename to our token's tombstone, check it is ours, delete it. */
async function removeOwn(paths: LockPaths, token: string): Promise<void> {
  const tombstone = tombstoneOf(paths.target, token);
  try {
    await fs.rename(paths.lock, tombstone);
  } catch (error) {
    if (await lostRename(error, paths.lock, tombstone)) throw lost('at release the round lock was no longer ours (it was taken over)');
    throw error;
  }
  if ((await readLockOwner(path.join(tombstone, 'owner.json')))?.token !== token) {
    await fs.rename(tombstone, paths.lock).catch(() => undefined);
    throw lost('at release the round lock was no longer ours (it was taken over); the holder\'s lock is left in place');
  }
  await removeTombstone(tombstone);
}

/**
 * Our own tombstone, gone: its owner file, then the folder (two calls; `rm -r` stats, lists and
 * stats again, each a round trip over a network mount). Anything else in it (a temp file an
 * owner write left) takes the long way.
 */
async function removeTombstone(tombstone: string): Promise<void> {
  await removeFile(path.join(tombstone, 'owner.json'));
  try {
    await fs.rmdir(tombstone);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    if (!isCode(error, 'ENOTEMPTY', 'EEXIST')) throw error;
    await fs.rm(tombstone, { recursive: true, force: true });
  }
}

function removeOwnSync(paths: LockPaths, token: string): void {
  const tombstone = tombstoneOf(paths.target, token);
  try {
    fsCallback.renameSync(paths.lock, tombstone);
    const owner = parseOwner(readBoardFileSync(path.join(tombstone, 'owner.json'), { maxBytes: BOARD_RECORD_MAX_BYTES }).toString('utf8'));
    if (owner?.token !== token) {
      fsCallback.renameSync(tombstone, paths.lock);
      return;
    }
    fsCallback.rmSync(tombstone, { recursive: true, force: true });
  } catch {
    // On exit: nothing more can be done; a lock left behind is taken over as its holder is dead.
  }
}

function lost(message: string): Error {
  return Object.assign(new Error(message), { code: 'ELOST' });
}

function newToken(): string {
  return randomBytes(8).toString('hex');
}

interface AcquireState {
  /** This acquisition created the lock folder (and its owner): rmdir now means "remove ours". */
  created: boolean;
  /** What proper-lockfile's stale path retired, if anything. */
  staleRetirement?: Retirement;
}

/** The `fs` handed to proper-lockfile: plain, except mkdir and rmdir(Sync) of the lock folder. */
/** This process's owner temp files left in the lock folder by a write the folder's move broke. */
function removeOwnTemps(paths: LockPaths): void {
  const prefix = `.owner.json.${process.pid}.`;
  try {
    for (const name of fsCallback.readdirSync(paths.lock)) {
      if (name.startsWith(prefix) && isBoardTempName(name)) fsCallback.rmSync(path.join(paths.lock, name), { force: true });
    }
  } catch {
    // The folder is still away at the tombstone: it comes back owner-less, and is judged by age.
  }
}

function lockFs(paths: LockPaths, owner: LockOwner & { token: string }, state: AcquireState, staleMs: number): typeof fsCallback {
  type Callback = (error?: NodeJS.ErrnoException | null) => void;
  return {
    ...fsCallback,
    mkdir(target: string, callback: Callback) {
      if (target !== paths.lock) return fsCallback.mkdir(target, callback);
      fsCallback.mkdir(target, (error) => {
        if (error) return callback(error);
        createFileExclusive(paths.owner, ownerText(owner)).then(
          () => {
            state.created = true;
            callback(null);
          },
          (writeError: NodeJS.ErrnoException) => {
            // ENOENT: a retirer that judged the lock before ours moved our fresh folder to its
            // tombstone, found it was not the one it judged and puts it back (retire()). Our
            // owner's temp file may ride along: remove it, so the folder comes back empty.
            if (isCode(writeError, ...GONE)) removeOwnTemps(paths);
            // rmdir, not rm -r: it only removes the folder if it is still the empty one we made.
            fsCallback.rmdir(target, () => {
              if (isCode(writeError, 'EEXIST', ...GONE)) {
                // A retirer judged the previous lock and wrote its marker into our fresh folder: it is
                // about to retire it, so we do not hold the lock.
                callback(Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' }));
              } else callback(writeError);
            });
          },
        );
      });
    },
    rmdir(target: string, callback: Callback) {
      if (target !== paths.lock) return fsCallback.rmdir(target, callback);
      if (state.created) {
        removeOwn(paths, owner.token).then(() => callback(null), (error: NodeJS.ErrnoException) => callback(error));
        return;
      }
      // proper-lockfile judged the lock stale and wants it gone: retire it instead of rmdir-ing it.
      // Whatever happened, it then tries one mkdir, which fails with ELOCKED if the name is taken.
      retire(paths, staleLock(staleMs)).then(
        (retirement) => {
          state.staleRetirement = retirement;
          callback(null);
        },
        (error: NodeJS.ErrnoException) => callback(error),
      );
    },
    rmdirSync(target: string) {
      if (target !== paths.lock) return fsCallback.rmdirSync(target);
      if (state.created) removeOwnSync(paths, owner.token);
    },
  } as unknown as typeof fsCallback;
}

/** Something at the lock's path that no board made and no round can take over: it needs a human. */
export class LockDebrisError extends Error {
  readonly code = 'ELOCKDEBRIS';
  constructor(message: string) {
    super(message);
    this.name = 'LockDebrisError';
  }
}

/**
 * What is wrong with `KANBAN/.board.lock` when it is not a lock folder a round can judge (a
 * dangling or any symbolic link, a regular file, a folder the board cannot read), in words that
 * name the path and what to do; undefined when it is absent or a readable folder. Without this a
 * tick would skip in silence forever: mkdir fails, and there is no owner or mtime to judge.
 */
export async function lockDebris(kanbanDir: string): Promise<string | undefined> {
  const { lock } = lockPaths(kanbanDir);
  let stat;
  try {
    stat = await fs.lstat(lock);
  } catch (error) {
    if (isCode(error, ...GONE)) return undefined;
    return `${lock} cannot be examined (${(error as Error).message}): fix the folder's permissions, or the mount`;
  }
  const remove = `no round can run while it is there. If no board process is running on any host, remove it: rm -rf '${lock}'`;
  if (stat.isSymbolicLink()) {
    const target = await fs.readlink(lock).catch(() => '?');
    const dangling = await fs.stat(lock).then(() => false, () => true);
    return `${lock} is a ${dangling ? 'dangling ' : ''}symbolic link (to ${target}), not the board's lock folder: ${remove}`;
  }
  if (!stat.isDirectory()) return `${lock} is a ${stat.isFile() ? 'regular file' : 'special file'}, not the board's lock folder: ${remove}`;
  try {
    await fs.readdir(lock);
  } catch (error) {
    if (isCode(error, ...GONE)) return undefined;
    return `${lock} is a folder the board cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): give the board's user access to it (chmod u+rwx), or ${remove}`;
  }
  return undefined;
}

/**
 * Take the round lock, or say who holds it and why it was not taken over. A lock whose holder died
 * on this host is taken over at once; any other (another host's, or one without an owner) once
 * stale by proper-lockfile's rule: its mtime not refreshed for `staleMs`.
 */
export async function acquireRoundLock(
  kanbanDir: string,
  onCompromised: (error: Error) => void,
  options: LockOptions = {},
): Promise<LockResult> {
  const staleMs = options.staleMs ?? STALE_MS;
  const paths = lockPaths(kanbanDir);
  // Refuse, naming the path, what no round can work with: a board without hard links, lock debris.
  await assertHardLinks(kanbanDir);
  const debris = await lockDebris(kanbanDir);
  if (debris) throw new LockDebrisError(debris);
  const owner = { pid: process.pid, ...hostIdentity(), since: new Date().toISOString(), token: newToken() };
  const state: AcquireState = { created: false };
  const lockOptions = {
    lockfilePath: paths.lock,
    realpath: false,
    stale: staleMs,
    update: staleMs / 3,
    retries: 0,
    fs: lockFs(paths, owner, state, staleMs),
    // The default throws from a timer and would crash the process; report instead.
    onCompromised,
  };
  const attempt = async (): Promise<(() => Promise<void>) | undefined> => {
    try {
      return await lockfile.lock(paths.target, lockOptions);
    } catch (error) {
      if (isCode(error, 'ELOCKED')) return undefined;
      throw error;
    }
  };

  let release = await attempt();
  let retirement: Retirement | undefined = state.staleRetirement;
  if (!release && retirement?.kind !== 'compromised') {
    // Held and not stale: is its holder a dead process of this host?
    retirement = await retire(paths, deadHolder);
    if (retirement.kind === 'retired' || retirement.kind === 'gone') release = await attempt();
  }
  if (!release) {
    if (retirement?.kind === 'compromised') return { acquired: false, reason: retirement.message };
    const look = await inspect(paths.lock);
    if (look && !look.ownerFile && (await cachedOnly(paths.lock))) {
      return {
        acquired: false,
        reason:
          `${paths.lock} is in this host's cache but no longer on the filesystem: this host sees a cached view of a shared board ` +
          '(mount it without name and attribute caching: sshfs -o dir_cache=no,attr_timeout=0,entry_timeout=0; NFS lookupcache=none,actimeo=0; see docs/scale.md)',
      };
    }
    return { acquired: false, ...(look?.owner ? { holder: look.owner } : {}), reason: heldReason(look, staleMs) };
  }

  const retired = [state.staleRetirement, retirement].find((r) => r?.kind === 'retired') as Extract<Retirement, { kind: 'retired' }> | undefined;
  await pruneTombstones(kanbanDir);
  await fs.rm(path.join(kanbanDir, LEGACY_OWNER), { force: true }).catch(() => undefined);
  return {
    acquired: true,
    ...(retired ? { tookOver: { ...(retired.look.owner ? { from: retired.look.owner } : {}), why: retired.why } } : {}),
    release: async () => {
      try {
        await release();
      } catch (error) {
        // After a compromise proper-lockfile forgets the lock; remove it if it is still ours.
        if (isCode(error, 'ERELEASED')) await removeOwn(paths, owner.token);
        else throw error;
      }
    },
  };
}

/**
 * A lock folder that stat, readdir and mkdir (answered from a client's name and attribute caches)
 * show, but that is gone on the server: a phantom of a released lock, which a host with caching on
 * a shared board keeps seeing while its cache lasts (sshfs: 20 s), so it skips round after round.
 * Setting the folder's mode to the mode it already has is asked of the server on sshfs and NFS and
 * changes nothing of a real lock (only its ctime, which nothing reads): ENOENT there means phantom.
 */
async function cachedOnly(lock: string): Promise<boolean> {
  try {
    const { mode } = await fs.stat(lock);
    await fs.chmod(lock, mode & 0o7777);
    return false;
  } catch (error) {
    return isCode(error, ...GONE);
  }
}

/** Why a held lock was left alone, in words for the tick's output. */
function heldReason(look: Look | undefined, staleMs: number): string {
  if (!look) return 'another round took the lock at this very moment';
  const age = Math.max(0, Math.round((Date.now() - look.mtimeMs) / 1000));
  const limit = `${staleMs / 1000} s`;
  const o = look.owner;
  if (o && sameProcessSpace(o)) {
    return isProcessAlive(o.pid)
      ? `held by pid ${o.pid} on this host, which is running (since ${o.since})`
      : `held by pid ${o.pid} on this host, which has died: another round is taking it over`;
  }
  if (o) {
    const where = o.host === hostIdentity().host ? `${o.host} (another PID namespace: a container with this hostname)` : o.host;
    return `held by pid ${o.pid} on ${where} since ${o.since}; refreshed ${age} s ago, taken over once not refreshed for ${limit}`;
  }
  if (!look.ownerFile && Date.now() - look.mtimeMs < OWNERLESS_GRACE_MS) return 'another round is taking the lock (its owner is not recorded yet)';
  return (
    `the lock ${look.ownerFile ? 'has an unreadable owner record' : 'has no owner record (a crash between creating it and recording its owner, or an older board)'}: ` +
    `judged by staleness only, it is taken over once not refreshed for ${limit} (last ${age} s ago)`
  );
}

/** Tombstones older than an hour: nobody still acting on the lock they held can bump into them. */
async function pruneTombstones(kanbanDir: string): Promise<void> {
  const names = await fs.readdir(kanbanDir).catch(() => [] as string[]);
  for (const name of names.filter(isTombstoneName)) {
    const folder = path.join(kanbanDir, name);
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat?.isDirectory() && Date.now() - Math.max(stat.mtimeMs, stat.ctimeMs) > TOMBSTONE_KEEP_MS) await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
