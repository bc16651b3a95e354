import path from 'node:path';
import { workerData } from 'node:worker_threads';
import { readCardBytes } from './vault/card-bytes.js';
import { STATE, type ReaderBatch, type ReaderJob } from './vault/reader-protocol.js';

/**
 * The census's reader thread (`dist/census-reader.cjs`, started by src/vault/read-ahead.ts): claims
 * files from the counter it shares with the main thread, reads them with the census's own read
 * (card-bytes.ts), and posts their bytes in batches, undecoded, while the main thread parses. It
 * decides nothing: what a file is and what it says are the main thread's. It waits while `ahead`
 * batches are posted and not yet parsed: the bytes in memory stay bounded.
 */
const job = workerData as ReaderJob;
const { state } = job;
const names = job.names.split('\0');
const pathOf = (i: number) => `${job.folders[job.folderOf[i]!]!}${path.sep}${names[i]!}`;

for (let start = Atomics.add(state, STATE.next, job.batch); start < names.length; start = Atomics.add(state, STATE.next, job.batch)) {
  const end = Math.min(names.length, start + job.batch);
  const chunks: Buffer[] = [];
  const lengths = new Int32Array(end - start);
  const reasons: string[] = [];
  let total = 0;
  for (let i = start; i < end; i++) {
    const read = readCardBytes(pathOf(i), job.seen[i] === 1);
    if (Buffer.isBuffer(read)) {
      chunks.push(read);
      lengths[i - start] = read.length;
      total += read.length;
    } else {
      lengths[i - start] = -1;
      reasons.push(read.reason);
    }
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const batch: ReaderBatch = { start, lengths, bytes, reasons };
  job.port.postMessage(batch, [lengths.buffer, bytes.buffer]);
  // Counted across every reader thread (a network mount's census has several).
  Atomics.add(state, STATE.posted, 1);
  Atomics.notify(state, STATE.posted);
  for (let parsed = Atomics.load(state, STATE.parsed); Atomics.load(state, STATE.posted) - parsed > job.ahead; parsed = Atomics.load(state, STATE.parsed)) {
    // Woken by the main thread's count; the timeout only bounds a missed wake-up.
    Atomics.wait(state, STATE.parsed, parsed, 1000);
  }
}
