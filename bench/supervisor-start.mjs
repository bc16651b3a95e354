#!/usr/bin/env node
/**
 * A spare supervisor's start of its worker: `board watch` starts supervisors ahead and hands each
 * its job on stdin; this times the job's hand-over (the end of stdin) to the worker's own first
 * timestamp, with nothing else running: the supervisor reading its job, checking its claim,
 * creating its run record, and spawning the worker (`/bin/sh` running `date`). Each supervisor is
 * given 400 ms to load before its job comes, as a spare is. Median, min and max of N runs
 * (default 15) of each build named, interleaved build by build (the machine's speed drifts):
 *   node bench/supervisor-start.mjs [N] [dist folder …]   (default: dist; `npm run build` first)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const n = Number(process.argv[2] ?? 15);
const builds = process.argv.length > 3 ? process.argv.slice(3).map((d) => path.resolve(d)) : [path.join(root, 'dist')];
const { SUPERVISOR_SPARE_VAR } = await import(path.join(root, 'dist/round/spawner.js'));

const board = fs.mkdtempSync(path.join(os.tmpdir(), 'board-bench-supervisor-'));
const kanban = path.join(board, 'KANBAN');
for (const d of ['pending', 'in-progress', 'done']) fs.mkdirSync(path.join(kanban, d), { recursive: true });

/** One run of `dist`'s supervisor on a fresh claim: ms from the job's hand-over to the worker's `date`. */
async function once(dist, i) {
  const claim = new Date(Date.UTC(2026, 11, 1, 0, 0, 0, i)).toISOString();
  const card = path.join(kanban, 'in-progress', `c${i}.md`);
  fs.writeFileSync(card, `---\nfunction: f\nrequest: r\ncreated: 2026-12-01\norigin: human\nclaimed: "${claim}"\nattempts: 0\npaths: []\n---\n`);
  const stamp = path.join(board, `w${i}`);
  const job = {
    runId: `c${i}.run.a0`,
    card,
    claim,
    kanbanDir: kanban,
    logFile: path.join(board, 'logs', `c${i}.log`),
    command: { file: '/bin/sh', args: ['-c', `date +%s%N > ${stamp}`], cwd: board, env: { PATH: '/usr/bin:/bin' }, privateNames: [] },
    sandbox: { confined: false, why: 'none' },
  };
  const child = spawn(process.execPath, [path.join(dist, 'supervisor.cjs')], { stdio: ['pipe', 'ignore', 'inherit'], env: { PATH: process.env.PATH, [SUPERVISOR_SPARE_VAR]: '1' } });
  await new Promise((r) => setTimeout(r, 400));
  // Wall-clock ms with a fraction, as the worker's `date +%s%N` is.
  const handedOver = performance.timeOrigin + performance.now();
  child.stdin.end(JSON.stringify(job));
  while (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() === '') await new Promise((r) => setTimeout(r, 1));
  const ms = Number(BigInt(fs.readFileSync(stamp, 'utf8').trim()) / 1000n) / 1000 - handedOver;
  await new Promise((r) => child.once('exit', r));
  return ms;
}

const times = new Map(builds.map((b) => [b, []]));
let i = 0;
for (let k = 0; k < n; k++) for (const b of builds) times.get(b).push(await once(b, i++));
for (const [b, t] of times) {
  t.sort((x, y) => x - y);
  console.log(`${path.relative(root, b) || b}: job handed over → worker's date: median ${t[Math.floor(t.length / 2)].toFixed(1)} ms, min ${t[0].toFixed(1)}, max ${t[t.length - 1].toFixed(1)} (${t.length} runs)`);
}
fs.rmSync(board, { recursive: true, force: true });
