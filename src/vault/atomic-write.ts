import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crashPoint } from './crash-seam.js';
import { linkNoReplace } from './move-card.js';
import { removeFile, removeFileSync } from './file-ops.js';

/** The longest file name (in bytes) the filesystems the board runs on take: NAME_MAX. */
export const NAME_MAX_BYTES = 255;

/**
 * A temp file beside the target (same filesystem, so the rename is atomic), hidden from census.
 * Its name always fits NAME_MAX: the target's name is cut (on a character boundary) when the
 * suffix would take it past 255 bytes; a card named with 240 bytes or more would otherwise fail
 * every write with ENAMETOOLONG after its claim moved it. The cut name still matches TEMP_NAME.
 */
export function tempPathFor(target: string): string {
  const suffix = `.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  return path.join(path.dirname(target), `.${fitBytes(path.basename(target), NAME_MAX_BYTES - 1 - suffix.length)}${suffix}`);
}

/** The longest prefix of `name` of at most `max` UTF-8 bytes, never splitting a character. */
function fitBytes(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  let out = '';
  let bytes = 0;
  for (const char of name) {
    const size = Buffer.byteLength(char);
    if (bytes + size > max) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** Exactly the names `tempPathFor` makes: `.<name>.<pid>.<8 hex>.tmp`. */
const TEMP_NAME = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;

export function isBoardTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

async function writeTemp(target: string, text: string): Promise<string> {
  const temp = tempPathFor(target);
  const handle = await fs.open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await removeFile(temp);
    throw namingTarget(error, target);
  }
  await handle.close();
  return temp;
}

/** `writeTemp` with blocking calls (see `createFileExclusiveBlocking`). */
function writeTempBlocking(target: string, text: string): string {
  const temp = tempPathFor(target);
  const fd = fsSync.openSync(temp, 'wx', 0o644);
  try {
    fsSync.writeFileSync(fd, text, 'utf8');
    fsSync.fsyncSync(fd);
  } catch (error) {
    fsSync.closeSync(fd);
    removeFileSync(temp);
    throw namingTarget(error, target);
  }
  fsSync.closeSync(fd);
  return temp;
}

/** A write through a file descriptor reports no path: name the file it was for (a full disk, say). */
function namingTarget(error: unknown, target: string): unknown {
  const e = error as NodeJS.ErrnoException;
  if (e.path === undefined) Object.assign(e, { path: target, syscall: e.syscall ?? 'write' });
  return error;
}

/**
 * Replace a file's content through a temp file and a rename: readers see old or new, never half.
 * `beforeRename` (a lock's check) runs between the two, as close to the rename as it can be: a
 * process paused while it wrote the temp file (a host frozen, a full disk's slow fsync) finds out
 * there whether it still may write, instead of renaming on a check made before the pause.
 */
export async function writeFileAtomic(target: string, text: string, beforeRename?: () => Promise<void>): Promise<void> {
  const temp = await writeTemp(target, text);
  crashPoint('write:temp');
  try {
    await beforeRename?.();
    await fs.rename(temp, target);
  } catch (error) {
    await removeFile(temp);
    throw error;
  }
}

/**
 * Create a file that must not exist yet, complete or not at all: the content goes to a temp file,
 * which is then hard-linked to the name (link fails with EEXIST instead of replacing).
 */
export async function createFileExclusive(target: string, text: string): Promise<void> {
  const temp = await writeTemp(target, text);
  try {
    await linkNoReplace(temp, target);
  } finally {
    await removeFile(temp);
  }
}

/**
 * `createFileExclusive` with blocking calls, for a process with nothing else to do meanwhile: a
 * supervisor about to start its worker, where its run record's seven hops through Node's thread
 * pool and back were ~2–5 ms of every run's start. A link that fails for any reason but EEXIST is
 * handed to `linkNoReplace`, which sorts out what network filesystems answer.
 */
export async function createFileExclusiveBlocking(target: string, text: string): Promise<void> {
  const temp = writeTempBlocking(target, text);
  try {
    try {
      fsSync.linkSync(temp, target);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error;
    }
    await linkNoReplace(temp, target);
  } finally {
    removeFileSync(temp);
  }
}
