import fsSync from 'node:fs';
import fs from 'node:fs/promises';

/*
 * The two file operations the board makes most often, each in as few system calls as it can.
 * Over a network mount with caching off (as a shared board runs), every call is a round trip to
 * the server; locally, every async call is a hop through Node's thread pool and back.
 */

/**
 * `mkdir -p` for a folder that nearly always exists already: one mkdir (EEXIST: there), where
 * Node's recursive mkdir makes two (its mkdir, then a stat of what answered EEXIST). A missing
 * parent falls back to the recursive mkdir. Something other than a folder at the name is left for
 * the operation that follows, which fails on it naming its own path (ENOTDIR).
 */
export async function ensureFolder(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw error;
    await fs.mkdir(dir, { recursive: true });
  }
}

/** The same, with blocking calls. */
export function ensureFolderSync(dir: string): void {
  try {
    fsSync.mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw error;
    fsSync.mkdirSync(dir, { recursive: true });
  }
}

/**
 * `op`, which creates something in `dir`, a folder that nearly always exists: tried first, and
 * only when it fails with ENOENT is the folder made and `op` run once more (no mkdir round trip
 * on every call). `op` must leave nothing behind when it fails with ENOENT (a create whose open
 * found no folder).
 */
export async function inFolder<T>(dir: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await ensureFolder(dir);
    return op();
  }
}

/**
 * Remove a file if it is there: one unlink, where `fs.rm(file, { force: true })` lstats it first.
 * Only for the board's own files (temp files, a lock's owner): a folder is refused, as rm refuses it.
 */
export async function removeFile(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The same, with a blocking call. */
export function removeFileSync(file: string): void {
  try {
    fsSync.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
