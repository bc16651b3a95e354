#!/usr/bin/env node
/**
 * The census's floor: `node bench/floor.mjs <vault>` reads every profile's and pending card's bytes
 * up to the closing fence, as plainly as Node can, and prints how many files and bytes. The
 * physical limit of a full census, timed next to `board dry-run` by bench/run.mjs and next to a
 * `board tick` over sshfs by the multi-host suite's opt-in measurement.
 */
import fs from 'node:fs';
import path from 'node:path';

const vault = process.argv[2];
const files = [];
for (const d of fs.readdirSync(path.join(vault, 'AGENTS'))) files.push(path.join(vault, 'AGENTS', d, 'PROFILE.md'));
const pending = path.join(vault, 'KANBAN/pending');
for (const n of fs.readdirSync(pending)) if (n.endsWith('.md')) files.push(path.join(pending, n));
let bytes = 0;
for (const f of files) {
  const text = fs.readFileSync(f, 'latin1');
  const end = text.indexOf('\n---', 3);
  bytes += end < 0 ? text.length : end + 4;
}
process.stdout.write(JSON.stringify({ files: files.length, bytes }));
