import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CENSUS_READER_SCRIPT } from '../entry-points.js';
import { readCardText, type Unreadable } from './card-bytes.js';

/**
 * The full census's reading, on the machine's second core: a reader thread
 * (src/census-reader.ts) reads the files in order and posts their bytes in batches while this
 * thread decodes and parses the batch before, so a tick's or a dry-run's census costs about the
 * larger of the two instead of their sum. Each file is read exactly as this thread would read it
 * (card-bytes.ts: no link followed, no FIFO waited on, the same reasons for what fails), and the
 * text handed on is the same text: only where the bytes are read changes.
 *
 * The thread takes tens of milliseconds to start: this thread reads the first files itself
 * meanwhile (`HEAD_FILES`), and the thread starts at the file after them. It stays at most
 * `AHEAD_BATCHES` batches ahead of the parsing, so the bytes waiting in memory stay bounded
 * whatever the board's size. Few files are all read here: a thread would not pay for itself. So
 * is the rest when the thread cannot start or dies (its script missing, a resource limit): from
 * the first file it did not hand over. `board watch` does not come here: its census cache
 * answers most files from a stat.
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
  /** The index of the first path in the caller's list: batches are numbered from it. */
  readonly offset: number;
  readonly batch: number;
  /** Batches the caller has parsed, counted up by it (Int32Array over a SharedArrayBuffer). */
  readonly parsed: Int32Array;
  /** How many posted batches may wait unparsed before the thread waits. */
  readonly ahead: number;
}

/** One batch: the bytes of files `start…`, back to back; a length of -1 is a file that gave none, with the next reason. */
export interface ReaderBatch {
  readonly start: number;
  readonly lengths: Int32Array;
  readonly bytes: Uint8Array;
  readonly reasons: string[];
}

/** Files to read, by folder: each folder's names in order, the folders one after the other. */
export interface FolderFiles {
  readonly folder: string;
  /** Names inside `folder` (a name may go one folder deeper: `<profile>/PROFILE.md`). */
  readonly names: readonly string[];
  /** The ones the folder listing typed as regular files. */
  readonly seenAsFiles?: ReadonlySet<string>;
}

/** The census's files in one order, without a path string per file kept around (50k cards: megabytes). */
export class ReadList {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(readonly groups: readonly FolderFiles[]) {
    let length = 0;
    for (const g of groups) {
      this.starts.push(length);
      length += g.names.length;
    }
    this.length = length;
  }

  /** The group of file `index` and the index inside it. */
  locate(index: number): { group: number; at: number } {
    let group = this.groups.length - 1;
    while (group > 0 && this.starts[group]! > index) group -= 1;
    return { group, at: index - this.starts[group]! };
  }

  absolute(index: number): string {
    const { group, at } = this.locate(index);
    // Listed names in normalized folders: no path.join needed (a census makes one per card).
    return `${this.groups[group]!.folder}${path.sep}${this.groups[group]!.names[at]!}`;
  }

  seenAsFile(index: number): boolean {
    const { group, at } = this.locate(index);
    return this.groups[group]!.seenAsFiles?.has(this.groups[group]!.names[at]!) === true;
  }
}

export interface ReadAheadOptions {
  /** The reader thread's script; tests pass the built one (the default sits beside the bundle). */
  readonly script?: string;
  /** Below this many files everything is read on this thread. */
  readonly minFiles?: number;
  /** Files read on this thread while the reader starts. */
  readonly headFiles?: number;
  /** Files per batch, and batches the reader may post ahead of the parsing (tests make both small). */
  readonly batchFiles?: number;
  readonly aheadBatches?: number;
}

/** Measured on 2 cores: under a few thousand files the thread is not won back. */
export const READ_AHEAD_MIN_FILES = 3000;
/** About the reader thread's start-up (~50 ms here), spent reading and parsing on this thread. */
const HEAD_FILES = 1000;
const BATCH_FILES = 256;
const AHEAD_BATCHES = 8;

/** Let the event loop run at least this often while reading here (timers: the round lock's refresh). */
const YIELD_EVERY_MS = 50;

type Take = (index: number, read: string | Unreadable) => void;

/**
 * Hands each file's text (or why it gave none) to `take`, in order, with its index. Resolves when
 * every file has been handed over. Never rejects for a file: a file's failure is its `Unreadable`.
 */
export async function readEach(files: ReadList, take: Take, options: ReadAheadOptions = {}): Promise<void> {
  const script = options.script ?? CENSUS_READER_SCRIPT;
  const threaded = files.length >= (options.minFiles ?? READ_AHEAD_MIN_FILES) && fs.existsSync(script);
  const head = threaded ? Math.min(files.length, options.headFiles ?? HEAD_FILES) : files.length;
  const reader = threaded && head < files.length ? startReader(files, head, script, options) : undefined;
  await readHere(files, 0, head, take);
  const handed = reader ? await reader.handOver(take) : head;
  await readHere(files, handed, files.length, take);
}

async function readHere(files: ReadList, from: number, to: number, take: Take): Promise<void> {
  let since = performance.now();
  for (let i = from; i < to; i++) {
    if (performance.now() - since > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    take(i, readCardText(files.absolute(i), files.seenAsFile(i)));
  }
}

/**
 * The reader thread, started on `files[from…]`. `handOver` passes its batches to `take` as they
 * come and resolves with the index of the first file not handed over: all of them, unless the
 * thread failed (or never started).
 */
function startReader(files: ReadList, from: number, script: string, options: ReadAheadOptions): { handOver: (take: Take) => Promise<number> } {
  const count = files.length - from;
  const folderOf = new Uint8Array(count);
  const seen = new Uint8Array(count);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const { group, at } = files.locate(from + i);
    folderOf[i] = group;
    seen[i] = files.seenAsFile(from + i) ? 1 : 0;
    names.push(files.groups[group]!.names[at]!);
  }
  const parsed = new Int32Array(new SharedArrayBuffer(4));
  const job: ReaderJob = {
    folders: files.groups.map((g) => g.folder),
    folderOf,
    names: names.join('\0'),
    seen,
    offset: from,
    batch: options.batchFiles ?? BATCH_FILES,
    parsed,
    ahead: options.aheadBatches ?? AHEAD_BATCHES,
  };
  let worker: Worker | undefined;
  try {
    // Its heap holds a few batches and the names: bounded, so a fault shows as a failed thread (read here instead).
    worker = new Worker(script, { workerData: job, stdout: false, stderr: false, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } });
  } catch {
    worker = undefined;
  }
  // Batches that come before the head is parsed wait here, in order.
  const early: ReaderBatch[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  worker?.on('message', (batch: ReaderBatch) => {
    early.push(batch);
    wake?.();
  });
  const end = () => {
    ended = true;
    wake?.();
  };
  worker?.on('error', end);
  worker?.on('exit', end);

  return {
    async handOver(take: Take): Promise<number> {
      let handed = from;
      if (!worker) return handed;
      try {
        while (handed < files.length) {
          const batch = early.shift();
          if (!batch) {
            // A thread that failed or ended early leaves the rest to this thread.
            if (ended) break;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          // Batches come in order; a stray one (never expected) ends the thread's part.
          if (batch.start !== handed) break;
          handed = handBatch(batch, take);
          Atomics.add(parsed, 0, 1);
          Atomics.notify(parsed, 0);
        }
      } finally {
        if (handed < files.length) void worker.terminate();
      }
      return handed;
    },
  };
}

/** Decodes one batch and hands its files over; returns the index after its last file. */
function handBatch(batch: ReaderBatch, take: Take): number {
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  let index = batch.start;
  let at = 0;
  let reason = 0;
  for (const length of batch.lengths) {
    if (length >= 0) {
      take(index, bytes.toString('utf8', at, at + length));
      at += length;
    } else {
      take(index, { reason: batch.reasons[reason++] ?? 'unreadable' });
    }
    index++;
  }
  return index;
}
