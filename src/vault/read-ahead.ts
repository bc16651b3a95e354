import fs from 'node:fs';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { CENSUS_READER_SCRIPT } from '../entry-points.js';
import { folderOnNetworkMount, readCardText, type Unreadable } from './card-bytes.js';
import { STATE, type ReaderBatch, type ReaderJob } from './reader-protocol.js';

/**
 * The full census's reading, on both of the machine's cores: a reader thread
 * (src/census-reader.ts) reads files and posts their bytes in batches while this thread parses,
 * and whenever this thread has no batch to parse it reads a few files itself. Both take their
 * next files from one shared counter, so no file is read twice and neither core waits while
 * files are left; on 2 cores the census costs about half its reading plus the parsing, where one
 * reader alone (the last session's design) left this thread idle once parsing got cheap. Each
 * file is read exactly as this thread reads it (card-bytes.ts: no link followed, no FIFO waited
 * on, the same reasons for what fails), and the text handed on is the same text: only where the
 * bytes are read changes.
 *
 * The reader stays at most `AHEAD_BATCHES` batches ahead of the parsing, so the bytes waiting in
 * memory stay bounded whatever the board's size. Few files are all read here: a thread would not
 * pay for itself. So is whatever the thread claimed and never handed over, when it cannot start
 * or dies (its script missing, a resource limit). `board watch` does not come here: its census
 * cache answers most files from a stat.
 */

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
  /** The same on a network mount (tests pass both, and where the files are). */
  readonly networkMinFiles?: number;
  readonly onNetwork?: boolean;
  /** Files this thread claims at a time when it has nothing to parse; 0: it only parses (tests). */
  readonly stealFiles?: number;
  /** Files per batch, and batches the readers may post ahead of the parsing (tests make both small). */
  readonly batchFiles?: number;
  readonly aheadBatches?: number;
  /** Reader threads on a network mount (one elsewhere). */
  readonly networkThreads?: number;
}

/** Measured on 2 cores: under a few thousand files the thread is not won back. */
export const READ_AHEAD_MIN_FILES = 3000;
/**
 * On a network mount a read is mostly a wait for the server (~2 ms over sshfs with caching off,
 * against ~40 µs of CPU here): two threads halve the waiting, and the thread's start (~50 ms)
 * is won back from a couple of hundred files on.
 */
export const READ_AHEAD_MIN_FILES_NETWORK = 200;
/**
 * On a network mount each read waits for the server, not for a core: more threads keep more
 * requests in flight (sshfs pipelines them over its one connection). One more thread for every
 * `READ_AHEAD_MIN_FILES_NETWORK` files, up to this many; each costs a thread's start (~50 ms of a
 * core) and little CPU after.
 */
export const READER_THREADS_NETWORK = 4;

/** How many reader threads a census of `count` files gets (0: it reads on the main thread only). */
export function readerThreads(count: number, onNetwork: boolean, options: Pick<ReadAheadOptions, 'minFiles' | 'networkMinFiles' | 'networkThreads'> = {}): number {
  if (!wantsReaderThread(count, onNetwork, options)) return 0;
  if (!onNetwork) return 1;
  const per = Math.max(1, options.networkMinFiles ?? READ_AHEAD_MIN_FILES_NETWORK);
  return Math.max(1, Math.min(options.networkThreads ?? READER_THREADS_NETWORK, Math.floor(count / per)));
}

/** Whether a census of `count` files gets the reader thread: many files, or fewer on a network mount. */
export function wantsReaderThread(count: number, onNetwork: boolean, options: Pick<ReadAheadOptions, 'minFiles' | 'networkMinFiles'> = {}): boolean {
  return count >= (onNetwork ? (options.networkMinFiles ?? READ_AHEAD_MIN_FILES_NETWORK) : (options.minFiles ?? READ_AHEAD_MIN_FILES));
}
/**
 * Small enough that the last batch, which this thread may wait for, is short (~2 ms of reading),
 * large enough that posting is a small share of it. This thread's own claims are smaller still:
 * a batch may arrive meanwhile.
 */
const BATCH_FILES = 64;
const STEAL_FILES = 16;
/** ~2000 files' bytes at most wait unparsed. */
const AHEAD_BATCHES = 32;

/** Let the event loop run at least this often (timers: the round lock's refresh; the thread's exit). */
const YIELD_EVERY_MS = 50;
/** How long one wait for the reader's next batch lasts before this thread looks around again. */
const WAIT_MS = 5;

type Take = (index: number, read: string | Unreadable) => void;

/**
 * Hands each file's text (or why it gave none) to `take`, with its index, exactly once each, in
 * no particular order. Resolves when every file has been handed over. Never rejects for a file:
 * a file's failure is its `Unreadable`; a `take` that throws rejects it (and stops the thread).
 */
export async function readEach(files: ReadList, take: Take, options: ReadAheadOptions = {}): Promise<void> {
  const script = options.script ?? CENSUS_READER_SCRIPT;
  // Asked only when it can change the answer (a statfs per folder, remembered by card-bytes.ts).
  const onNetwork = options.onNetwork ?? (wantsReaderThread(files.length, true, options) && files.groups.some((g) => g.names.length > 0 && folderOnNetworkMount(g.folder)));
  const threads = fs.existsSync(script) ? readerThreads(files.length, onNetwork, options) : 0;
  const reader = threads > 0 ? startReaders(files, script, threads, options) : undefined;
  if (!reader) {
    await readHere(files, 0, files.length, take);
    return;
  }
  const handed = new Uint8Array(files.length);
  let count = 0;
  const hand = (index: number, read: string | Unreadable) => {
    // A file is handed over once, whoever read it (a stray batch cannot repeat one).
    if (handed[index] === 1) return;
    handed[index] = 1;
    count++;
    take(index, read);
  };
  const steal = options.stealFiles ?? STEAL_FILES;
  const { state } = reader;
  try {
    let since = performance.now();
    while (count < files.length) {
      if (performance.now() - since > YIELD_EVERY_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        since = performance.now();
      }
      const posted = Atomics.load(state, STATE.posted);
      const batch = reader.receive();
      if (batch) {
        handBatch(batch, files.length, hand);
        Atomics.add(state, STATE.parsed, 1);
        Atomics.notify(state, STATE.parsed);
        continue;
      }
      if (steal > 0) {
        const start = Atomics.add(state, STATE.next, steal);
        if (start < files.length) {
          for (let i = start; i < Math.min(files.length, start + steal); i++) hand(i, readOnThisThread(files, i));
          continue;
        }
      }
      // Everything is claimed, and the readers hold the rest, unless they have ended.
      if (reader.ended()) {
        for (let late = reader.receive(); late; late = reader.receive()) handBatch(late, files.length, hand);
        break;
      }
      Atomics.wait(state, STATE.posted, posted, WAIT_MS);
    }
    // What a thread that failed (or never started) claimed and did not hand over.
    for (let i = 0; i < files.length && count < files.length; i++) {
      if (handed[i] === 0) hand(i, readOnThisThread(files, i));
    }
  } finally {
    reader.stop();
  }
}

async function readHere(files: ReadList, from: number, to: number, take: Take): Promise<void> {
  let since = performance.now();
  for (let i = from; i < to; i++) {
    if (performance.now() - since > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    take(i, readOnThisThread(files, i));
  }
}

/** File `index` read here, as the reader thread reads it (card-bytes.ts). */
function readOnThisThread(files: ReadList, index: number): string | Unreadable {
  return readCardText(files.absolute(index), files.seenAsFile(index));
}

interface Reader {
  readonly state: Int32Array;
  /** The next posted batch of any thread, if one is waiting. */
  receive(): ReaderBatch | undefined;
  /** Every thread exited or failed (seen on a turn of the event loop). */
  ended(): boolean;
  stop(): void;
}

/** `count` reader threads, started on `files` and sharing one counter; `undefined` if none can be started. */
function startReaders(files: ReadList, script: string, count: number, options: ReadAheadOptions): Reader | undefined {
  const folderOf = new Uint8Array(files.length);
  const seen = new Uint8Array(files.length);
  const names: string[] = [];
  for (let i = 0; i < files.length; i++) {
    const { group, at } = files.locate(i);
    folderOf[i] = group;
    seen[i] = files.seenAsFile(i) ? 1 : 0;
    names.push(files.groups[group]!.names[at]!);
  }
  const state = new Int32Array(new SharedArrayBuffer(4 * 3));
  const shared = {
    folders: files.groups.map((g) => g.folder),
    folderOf,
    names: names.join('\0'),
    seen,
    batch: options.batchFiles ?? BATCH_FILES,
    state,
    ahead: options.aheadBatches ?? AHEAD_BATCHES,
  };
  const threads: { port: MessagePort; ended: boolean; worker: Worker }[] = [];
  for (let k = 0; k < count; k++) {
    const channel = new MessageChannel();
    const job: ReaderJob = { ...shared, port: channel.port2 };
    try {
      // Its heap holds a few batches and the names: bounded, so a fault shows as a failed thread (read here instead).
      const worker = new Worker(script, {
        workerData: job,
        transferList: [channel.port2],
        stdout: false,
        stderr: false,
        resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
      });
      const thread = { port: channel.port1, ended: false, worker };
      worker.on('error', () => (thread.ended = true));
      worker.on('exit', () => (thread.ended = true));
      threads.push(thread);
    } catch {
      channel.port1.close();
      break;
    }
  }
  if (threads.length === 0) return undefined;
  let turn = 0;
  return {
    state,
    receive: () => {
      // Each thread's port in turn, so no thread's batches wait behind another's.
      for (let k = 0; k < threads.length; k++) {
        const thread = threads[(turn + k) % threads.length]!;
        const batch = receiveMessageOnPort(thread.port)?.message as ReaderBatch | undefined;
        if (batch) {
          turn = (turn + k + 1) % threads.length;
          return batch;
        }
      }
      return undefined;
    },
    ended: () => threads.every((t) => t.ended),
    stop: () => {
      for (const thread of threads) {
        thread.port.close();
        if (!thread.ended) void thread.worker.terminate();
      }
    },
  };
}

/** Decodes one batch and hands its files over (a batch that does not fit the list is ignored). */
function handBatch(batch: ReaderBatch, length: number, hand: Take): void {
  if (!Number.isInteger(batch.start) || batch.start < 0 || batch.start + batch.lengths.length > length) return;
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  let index = batch.start;
  let at = 0;
  let reason = 0;
  for (const size of batch.lengths) {
    if (size >= 0) {
      hand(index, bytes.toString('utf8', at, at + size));
      at += size;
    } else {
      hand(index, { reason: batch.reasons[reason++] ?? 'unreadable' });
    }
    index++;
  }
}
