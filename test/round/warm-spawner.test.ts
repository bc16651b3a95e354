import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { warmSupervisorSpawner, type RunJob } from '../../src/round/spawner.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `board watch`'s spawner hands each job to a supervisor started ahead (a spare) and starts the
 * next one after. A stand-in supervisor writes the job it read on stdin to `<pid>.json`, or
 * `<pid>.none` when its input ended without one.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-warm-spawner-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const script = path.join(dir, 'supervisor.cjs');
fs.writeFileSync(
  script,
  `const fs = require('node:fs'); let raw = '';\n` +
    `process.stdin.on('data', (d) => (raw += d)).on('end', () => fs.writeFileSync(${JSON.stringify(dir)} + '/' + process.pid + (raw ? '.json' : '.none'), raw));\n`,
);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const job = (runId: string) => ({ runId }) as unknown as RunJob;
const written = (suffix: string) => fs.readdirSync(dir).filter((f) => f.endsWith(suffix));

describe('warmSupervisorSpawner', () => {
  it('hands each job to a supervisor of its own, back to back, and lets the spare go on close', async () => {
    const spawner = warmSupervisorSpawner(script);
    // Two in the same turn (a round dispatching several): the second finds no spare yet.
    const [a, b] = await Promise.all([spawner.start(job('run-a')), spawner.start(job('run-b'))]);
    await waitFor('the first two jobs', () => written('.json').length === 2);
    // A later one finds the spare started after the first.
    await new Promise((r) => setTimeout(r, 50));
    const c = await spawner.start(job('run-c'));
    await waitFor('the third job', () => written('.json').length === 3);
    const byPid = new Map(written('.json').map((f) => [Number(f.split('.')[0]), (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { runId: string }).runId]));
    expect(byPid.get(a.pid!)).toBe('run-a');
    expect(byPid.get(b.pid!)).toBe('run-b');
    expect(byPid.get(c.pid!)).toBe('run-c');
    // The spare left over gets no job when the watch stops: its input ends and it exits.
    await new Promise((r) => setTimeout(r, 50));
    spawner.close?.();
    await waitFor('the spare to see its input end', () => written('.none').length >= 1);
    expect(written('.json')).toHaveLength(3);
  });
});

describe('warmSupervisorSpawner: the next spare', () => {
  /**
   * A stand-in that notes its start (`<pid>.up`), reads its job, then says its worker started
   * (one line on stdout) only once `<dir>/go-<runId>` exists, and lives on for a while.
   */
  const sub = fs.mkdtempSync(path.join(dir, 'next-'));
  const slow = path.join(sub, 'supervisor.cjs');
  fs.writeFileSync(
    slow,
    `const fs = require('node:fs'); const d = ${JSON.stringify(sub)}; fs.writeFileSync(d + '/' + process.pid + '.up', '');\n` +
      `let raw = ''; process.stdin.on('data', (x) => (raw += x)).on('end', () => {\n` +
      `  if (!raw) return; const { runId } = JSON.parse(raw);\n` +
      // Gone with the test's folder, it ends: it must not poll for ever after the suite.
      `  const t = setInterval(() => { if (!fs.existsSync(d)) process.exit(0); if (fs.existsSync(d + '/go-' + runId)) { clearInterval(t); fs.writeSync(1, 'started\\n'); setTimeout(() => {}, 3000); } }, 10);\n` +
      `});\n`,
  );
  const up = () => fs.readdirSync(sub).filter((f) => f.endsWith('.up')).length;

  it('is started once the run in hand says its worker started, not at the hand-over', async () => {
    const spawner = warmSupervisorSpawner(slow);
    await waitFor('the first spare', () => up() === 1);
    await spawner.start(job('run-a'));
    // Handed over, its worker not started yet: no second spare competes with it.
    await new Promise((r) => setTimeout(r, 300));
    expect(up()).toBe(1);
    fs.writeFileSync(path.join(sub, 'go-run-a'), '');
    await waitFor('the next spare, once run-a said its worker started', () => up() === 2);
    // A run that never says so does not hold the next spare back for long (NEXT_SPARE_AFTER_MS).
    const t0 = Date.now();
    await spawner.start(job('run-b'));
    await waitFor('the spare after run-b, at the latest a second later', () => up() === 3, 5_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    spawner.close?.();
    fs.writeFileSync(path.join(sub, 'go-run-b'), '');
    // Every stand-in started here ends before the test does (none left polling a removed folder).
    const pids = fs.readdirSync(sub).filter((f) => f.endsWith('.up')).map((f) => Number(f.split('.')[0]));
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    await waitFor('every stand-in to end', () => pids.every((pid) => !alive(pid)));
  });
});
