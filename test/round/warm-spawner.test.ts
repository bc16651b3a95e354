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
