import fs from 'node:fs';
import path from 'node:path';

/**
 * How the census reads one card's (or profile's) file: never following a link, never blocking on
 * a FIFO, one read of the size the file has. Two forms of the same read: the text, for the main
 * thread, and the bytes, for the census's reader thread (read-ahead.ts), which hands them over
 * undecoded. This module imports nothing but `node:fs` and `node:path`: the reader thread's bundle
 * is this file and its own loop.
 */

/** Why a file gave no text: the census declares it, with this reason, as the file's problem. */
export interface Unreadable {
  readonly reason: string;
}

/** Never follow a link, never block on a FIFO. */
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

export function unreadable(error: unknown): Unreadable {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') return { reason: 'a symbolic link, not a file: the board does not follow links' };
  if (code === 'EISDIR') return { reason: 'not a regular file' };
  return { reason: code === 'ENOENT' ? 'vanished while being read' : `unreadable: ${code ?? (error as Error).message}` };
}

/**
 * A file's text. `seenAsFile`: the folder listing (its entry type) or an lstat just now said it is
 * a regular file; it is then read in one native call (open, read, close): about 40% cheaper than
 * the open/fstat/read/close of `readRegular`, which a census pays for every card every round. The
 * same flags hold for whatever replaced it since it was seen: a link fails (ELOOP), a folder fails
 * (EISDIR), a FIFO reads as empty (declared: no front matter). Only a device node put there in
 * between, which takes root, would be read as one.
 */
export function readCardText(absolute: string, seenAsFile: boolean): string | Unreadable {
  if (!seenAsFile || onNetworkMount(absolute)) {
    const read = readRegular(absolute);
    return Buffer.isBuffer(read) ? read.toString('utf8') : read;
  }
  try {
    // Node's "File system flags": a flag may also be a number, as open(2) takes it; @types/node
    // types `flag` as a string only.
    return fs.readFileSync(absolute, { encoding: 'utf8', flag: READ_FLAGS as unknown as string });
  } catch (error) {
    return unreadable(error);
  }
}

/**
 * The same read as `readCardText`, as bytes: what decodes to the very text `readCardText` gives.
 * Node's path read (`readFileSync` without an encoding) opens, fstats and reads to the end, with
 * the same flags, so the same files fail with the same codes.
 */
export function readCardBytes(absolute: string, seenAsFile: boolean): Buffer | Unreadable {
  if (!seenAsFile || onNetworkMount(absolute)) return readRegular(absolute);
  try {
    return fs.readFileSync(absolute, { flag: READ_FLAGS as unknown as string });
  } catch (error) {
    return unreadable(error);
  }
}

/** statfs(2) magic numbers of the network filesystems a shared board sits on. */
const NETWORK_FS = new Set([
  0x65735546, // FUSE (sshfs, rclone, s3fs …)
  0x6969, // NFS
  0x517b, // SMB
  0xfe534d42, // SMB2
  0xff534d42, // CIFS
]);
const networkFolders = new Map<string, boolean>();

/** Whether the file's folder is on a network filesystem (asked once per folder and process). */
function onNetworkMount(absolute: string): boolean {
  return folderOnNetworkMount(path.dirname(absolute));
}

/** Whether a folder is on a network filesystem (asked once per folder and process). */
export function folderOnNetworkMount(dir: string): boolean {
  let network = networkFolders.get(dir);
  if (network === undefined) {
    try {
      network = NETWORK_FS.has(fs.statfsSync(dir).type);
    } catch {
      network = false;
    }
    networkFolders.set(dir, network);
  }
  return network;
}

/**
 * A file's bytes with one open (never following a link, never blocking on a FIFO), one fstat and
 * one read of the size it gave, as Node's own `readFileSync` of a path does (and the census's
 * floor). Used where the listing did not type the entry, and on a network mount for every file:
 * the one-call read reads until a read returns nothing, and with attribute caching off (as a
 * shared board must run: several hosts write it) every read reaching past the size the kernel
 * knows asks the server for the file's attributes again, one more round trip per card than the
 * floor, every round. A file that grew since its fstat is read up to that size: a card is
 * replaced by a rename, never grown in place, and the next round reads the new one.
 */
function readRegular(absolute: string): Buffer | Unreadable {
  let fd: number;
  try {
    fd = fs.openSync(absolute, READ_FLAGS);
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { reason: 'not a regular file' };
    // An empty (or unsized) file is read to its end.
    if (stat.size === 0) return fs.readFileSync(fd);
    const buffer = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return filled === buffer.length ? buffer : buffer.subarray(0, filled);
  } catch (error) {
    return { reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
}
