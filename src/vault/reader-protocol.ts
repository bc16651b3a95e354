import type { MessagePort } from 'node:worker_threads';

/*
 * What the census's reader thread (src/census-reader.ts) and the main thread's read-ahead.ts share.
 * Types and one constant only: the thread's bundle stays this, card-bytes.ts and its own loop.
 */

/**
 * What the reader thread is given: each file as its folder (an index into `folders`) and its name
 * there, the names joined by NUL (no name holds one), and which of them the listing saw as files.
 */
export interface ReaderJob {
  readonly folders: readonly string[];
  readonly folderOf: Uint8Array;
  readonly names: string;
  readonly seen: Uint8Array;
  readonly batch: number;
  /** Shared by both threads (Int32Array over a SharedArrayBuffer), indexed by `STATE`. */
  readonly state: Int32Array;
  /** How many posted batches may wait unparsed before the thread waits. */
  readonly ahead: number;
  /** Where the batches go: the main thread takes them without a turn of its event loop. */
  readonly port: MessagePort;
}

/** The slots of `ReaderJob.state`. */
export const STATE = {
  /** The first file nobody has claimed yet: each side claims its next files by adding to it. */
  next: 0,
  /** Batches the main thread has parsed. */
  parsed: 1,
  /** Batches the reader threads have posted, all of them together (the main thread waits on it). */
  posted: 2,
} as const;

/** One batch: the bytes of files `start…`, back to back; a length of -1 is a file that gave none, with the next reason. */
export interface ReaderBatch {
  readonly start: number;
  readonly lengths: Int32Array;
  readonly bytes: Uint8Array;
  readonly reasons: string[];
}
