import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { readCardBytes } from './vault/card-bytes.js';
import type { ReaderBatch, ReaderJob } from './vault/read-ahead.js';

/**
 * The census's reader thread (`dist/census-reader.js`, started by src/vault/read-ahead.ts): reads
 * the files it is given, in order, with the census's own read (card-bytes.ts), and posts their
 * bytes in batches, undecoded, while the main thread parses the batch before. It decides nothing:
 * what a file is and what it says are the main thread's. It waits while `ahead` batches are
 * posted and not yet parsed: the bytes in memory stay bounded.
 */
const job = workerData as ReaderJob;
const names = job.names.split('\0');
const pathOf = (i: number) => `${job.folders[job.folderOf[i]!]!}${path.sep}${names[i]!}`;

let posted = 0;
for (let start = 0; start < names.length; start += job.batch) {
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
  const batch: ReaderBatch = { start: job.offset + start, lengths, bytes, reasons };
  parentPort!.postMessage(batch, [lengths.buffer, bytes.buffer]);
  posted += 1;
  for (let parsed = Atomics.load(job.parsed, 0); posted - parsed > job.ahead; parsed = Atomics.load(job.parsed, 0)) {
    // Woken by the main thread's count; the timeout only bounds a missed wake-up.
    Atomics.wait(job.parsed, 0, parsed, 1000);
  }
}
