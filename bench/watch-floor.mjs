#!/usr/bin/env node
/**
 * The watch latency's floor: `node bench/watch-floor.mjs <vault> <worker.sh> <record-file>`
 * watches `<vault>/KANBAN/pending` with `fs.watch` and, for each card that appears there, starts
 * the bench's worker for it at once: detached, its output into a file, as a supervisor starts a
 * worker. Nothing in between: no round, no lock, no claim, no supervisor. What any Node dispatcher
 * pays at least from a drop to its worker's first timestamp (the kernel's event, one process
 * start, the worker's own start), timed by bench/run.mjs next to `board watch` on the same
 * machine, sample for sample. Prints `ready` once it watches.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [vault, worker, recordFile] = process.argv.slice(2);
if (!vault || !worker || !recordFile) {
  process.stderr.write('usage: watch-floor.mjs <vault> <worker.sh> <record-file>\n');
  process.exit(2);
}
const pending = path.join(vault, 'KANBAN/pending');
const out = fs.openSync(path.join(vault, 'floor-workers.log'), 'a');
const started = new Set();

fs.watch(pending, (_event, name) => {
  if (typeof name !== 'string' || !name.endsWith('.md') || started.has(name)) return;
  const card = path.join(pending, name);
  // The worker moves its card out: that event names a file no longer there.
  if (!fs.existsSync(card)) return;
  started.add(name);
  const child = spawn('/bin/sh', [worker], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BOARD_CARD: card, BOARD_VAULT: vault, RECORD_FILE: recordFile },
  });
  child.unref();
});
process.stdout.write('ready\n');
