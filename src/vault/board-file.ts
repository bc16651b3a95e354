import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { BoardError, EXIT } from '../errors.js';

/**
 * Opening the board's own files (issue 18, item 4): journal day files, per-run logs, run records,
 * stop requests, manifests, objects, lock owners, the round's bookkeeping under `logs/`. Something
 * else may have planted a link, a FIFO or a folder at one of those names (a worker, before workers
 * were confined; anyone who can write `logs/`). The board never follows a link there
 * (O_NOFOLLOW), never waits on a FIFO (O_NONBLOCK: a FIFO without a reader fails at once, one
 * with a reader is refused by fstat), reads and appends regular files only, and reads a bounded
 * number of bytes. A missing file stays the caller's ENOENT.
 */

/** A board file that is not a regular file, or larger than the board ever writes one: exit 1. */
export class BoardFileError extends BoardError {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file} ${reason}: the board reads and appends only regular files of its own, and nothing was read or written through it (remove it)`, EXIT.failure);
  }
}

const READ = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
const APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** The bound for a small record the board writes (run record, stop request, lock owner, manifest). */
export const BOARD_RECORD_MAX_BYTES = 4 * 1024 * 1024;

/** The default read bound: far above any file the board writes but a journal's day file. */
export const BOARD_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** An open(2) failure that means "not a regular file", as a BoardFileError; anything else unchanged. */
function openFailure(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  // ELOOP: a symbolic link under O_NOFOLLOW (EMLINK on some BSDs). ENXIO: a FIFO with no reader
  // opened for writing, or a socket. EISDIR: a folder opened for writing.
  if (code === 'ELOOP' || code === 'EMLINK') return new BoardFileError(file, 'is a symbolic link');
  if (code === 'ENXIO') return new BoardFileError(file, 'is a FIFO or a socket, not a regular file');
  if (code === 'EISDIR') return new BoardFileError(file, 'is a folder, not a regular file');
  return error;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'is a folder';
  if (stat.isFIFO()) return 'is a FIFO';
  if (stat.isSocket()) return 'is a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'is a device';
  return 'is not a regular file';
}

function checkRegular(file: string, stat: fs.Stats, maxBytes?: number): void {
  if (!stat.isFile()) throw new BoardFileError(file, `${kindOf(stat)}, not a regular file`);
  if (maxBytes !== undefined && stat.size > maxBytes) throw new BoardFileError(file, `is ${stat.size} bytes, more than the ${maxBytes} the board reads of such a file`);
}

export interface ReadBoardFileOptions {
  /** Refuse a file larger than this (default 64 MiB). */
  readonly maxBytes?: number;
}

/**
 * Open a board file for reading (a regular file, not through a link, never blocking) for a caller
 * that reads only part of it (the tail of a worker's log); the caller closes the handle.
 */
export async function openBoardRead(file: string): Promise<fsp.FileHandle> {
  return (await openRegular(file, READ)).handle;
}

/**
 * Open without following a link or blocking on a FIFO, then insist on a regular file (else close
 * it and refuse). The fstat is handed back: over a network mount each one is a round trip.
 */
async function openRegular(file: string, flags: number, mode?: number, maxBytes?: number): Promise<{ handle: fsp.FileHandle; stat: fs.Stats }> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, flags, mode);
  } catch (error) {
    throw openFailure(file, error);
  }
  try {
    const stat = await handle.stat();
    checkRegular(file, stat, maxBytes);
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A board file's bytes: a regular file, not through a link, never blocking, bounded. */
export async function readBoardFile(file: string, options: ReadBoardFileOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? BOARD_FILE_MAX_BYTES;
  const { handle, stat } = await openRegular(file, READ, undefined, maxBytes);
  try {
    return await readBounded(file, (buffer, offset, length) => handle.read(buffer, offset, length, null).then((r) => r.bytesRead), maxBytes, stat.size);
  } finally {
    await handle.close();
  }
}

export async function readBoardText(file: string, options: ReadBoardFileOptions = {}): Promise<string> {
  return (await readBoardFile(file, options)).toString('utf8');
}

/** The same, synchronously (the supervisor's claim watch, lock release at exit). */
export function readBoardFileSync(file: string, options: ReadBoardFileOptions = {}): Buffer {
  const maxBytes = options.maxBytes ?? BOARD_FILE_MAX_BYTES;
  let fd: number;
  try {
    fd = fs.openSync(file, READ);
  } catch (error) {
    throw openFailure(file, error);
  }
  try {
    const stat = fs.fstatSync(fd);
    checkRegular(file, stat, maxBytes);
    return readBoundedSync(file, fd, maxBytes, stat.size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Read to the end, but never more than `maxBytes` (a file may grow after its fstat). The first
 * read asks for the size fstat gave plus one byte, so it sees the end in the same call: a read of
 * a regular file that returns less than it asked for has met the end of the file, and no second
 * read (over a network mount, a round trip to the server) is made to hear it say 0. A 1 MiB
 * buffer for every run record and lock owner was most of what a busy `watch` collected.
 */
async function readBounded(file: string, read: (buffer: Buffer, offset: number, length: number) => Promise<number>, maxBytes: number, expected: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = nextChunk(total, expected, maxBytes);
    const n = await read(chunk, 0, chunk.length);
    if (n === 0) break;
    total = counted(file, chunks, chunk, n, total, maxBytes);
    if (n < chunk.length) break;
  }
  return Buffer.concat(chunks);
}

/** The same, synchronously, from an open descriptor. */
function readBoundedSync(file: string, fd: number, maxBytes: number, expected: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = nextChunk(total, expected, maxBytes);
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    total = counted(file, chunks, chunk, n, total, maxBytes);
    if (n < chunk.length) break;
  }
  return Buffer.concat(chunks);
}

/** The buffer for the next read: the expected size plus one at first, then usually just the end-of-file check. */
function nextChunk(total: number, expected: number, maxBytes: number): Buffer {
  const want = total === 0 ? expected + 1 : 64 * 1024;
  return Buffer.allocUnsafe(Math.min(want, 1024 * 1024, maxBytes + 1 - total) || 1);
}

/** Keep a read's `n` bytes; the new total, or a BoardFileError once it is past `maxBytes`. */
function counted(file: string, chunks: Buffer[], chunk: Buffer, n: number, total: number, maxBytes: number): number {
  const sum = total + n;
  if (sum > maxBytes) throw new BoardFileError(file, `grew past the ${maxBytes} bytes the board reads of such a file`);
  chunks.push(chunk.subarray(0, n));
  return sum;
}

/**
 * Open a board file for appending (created 0644 when missing): never through a link, never
 * blocking on a FIFO, a regular file or a BoardFileError naming it. The caller closes the handle.
 */
export async function openBoardAppend(file: string): Promise<fsp.FileHandle> {
  return (await openRegular(file, APPEND, 0o644)).handle;
}

/** The same, synchronously, as a descriptor (a worker's log, given to it as stdout and stderr). */
export function openBoardAppendSync(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, APPEND, 0o644);
  } catch (error) {
    throw openFailure(file, error);
  }
  try {
    checkRegular(file, fs.fstatSync(fd));
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return fd;
}

/** Append text to a board file in one write (the supervisor's notes in a run's log). */
export function appendBoardFileSync(file: string, text: string): void {
  const fd = openBoardAppendSync(file);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
