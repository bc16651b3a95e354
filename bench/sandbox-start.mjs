#!/usr/bin/env node
/**
 * The cost of the worker sandbox at run start: wall time of running `true` through
 * prepareConfinement + bwrap + sandbox-init + apply-seccomp, against a plain spawn of `true`.
 * Median of N runs (default 15). Needs `npm run build` and a host where bwrap starts.
 *   node bench/sandbox-start.mjs [N]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { prepareConfinement } = await import(path.join(root, 'dist/sandbox/confine.js'));
const { sandboxProbe: probeSandbox } = await import(path.join(root, 'dist/sandbox/probe.js'));
const n = Number(process.argv[2] ?? 15);
const probe = probeSandbox();
if (!probe.ok) {
  console.error(`the sandbox cannot start here: ${probe.reason}`);
  process.exit(1);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-bench-sandbox-'));
for (const d of ['vault/KANBAN', 'harnesses', 'logs']) fs.mkdirSync(path.join(dir, d), { recursive: true });
fs.writeFileSync(path.join(dir, 'board.yml'), 'vault: vault\n');
const command = { file: 'true', args: [], cwd: path.join(dir, 'vault'), env: { PATH: '/usr/bin:/bin' }, prompt: '', privateNames: [] };
const sandbox = { confined: true, declared: { read: [], write: [], hosts: [] }, vault: path.join(dir, 'vault'), harnessesDir: path.join(dir, 'harnesses'), configFile: path.join(dir, 'board.yml'), logsDir: path.join(dir, 'logs') };

const run = (c) =>
  new Promise((resolve, reject) => {
    const child = spawn(c.file, c.args, { cwd: c.cwd, env: c.env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${c.file} exited ${code}`))));
  });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const plain = [];
const confined = [];
for (let i = 0; i < n; i++) {
  let t = performance.now();
  await run(command);
  plain.push(performance.now() - t);
  t = performance.now();
  const c = prepareConfinement({ runId: `bench-${i}`, kanbanDir: path.join(dir, 'vault/KANBAN'), command, sandbox });
  await run(c.command);
  c.close();
  confined.push(performance.now() - t);
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ runs: n, plainMs: +median(plain).toFixed(1), sandboxedMs: +median(confined).toFixed(1), overheadMs: +(median(confined) - median(plain)).toFixed(1) }));
