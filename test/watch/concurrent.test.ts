import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startWatch, type WatchHandle } from '../../src/watch/daemon.js';
import { card, FakeSpawner, makeBoard, profile } from '../helpers/vault.js';
import { waitFor as waitUntil } from '../helpers/wait.js';

/** Runs the built CLI (`npm test` builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

const COUNTER = profile('counter', 'function: count\nhandles: [count words]\nskills: [count-words]');
const SLEEPER = [
  `command: ["${process.execPath}", "-e", "setTimeout(() => {}, 120000)", "{prompt}"]`,
  'prompt_template: "work {card}"',
  'credential_guard: guard.sh',
].join('\n');

function newCard(i: number): string {
  return card(`function: count\nrequest: count words, batch ${i}\ncreated: 2026-12-01 09:${String(i % 60).padStart(2, '0')}\norigin: human\nattempts: 0\npaths: []`);
}

function tick(root: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'tick', '--config', 'board.yml'], { cwd: root, stdio: 'ignore', env: { ...process.env, BOARD_CONFIG: '' } });
    child.on('exit', (code) => resolve(code));
  });
}

const waitFor = (what: string, probe: () => boolean, timeoutMs = 30_000) => waitUntil(what, probe, timeoutMs, 50);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Stop every supervisor and worker the ticks started: the test leaves no process behind. */
function killRuns(root: string): void {
  const dir = path.join(root, 'vault/KANBAN/.runs');
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir)) {
    try {
      const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { pid?: number; workerPid?: number };
      for (const pid of [r.workerPid, r.pid]) if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    } catch {
      /* torn record */
    }
  }
}

describe('a watcher and concurrent `board tick`s on one vault', () => {
  it('never claim one card twice', async () => {
    const cards: Record<string, string> = { 'AGENTS/counter/PROFILE.md': COUNTER };
    for (let i = 0; i < 12; i++) cards[`KANBAN/pending/card-${String(i).padStart(2, '0')}.md`] = newCard(i);
    const root = makeBoard(cards, {
      'board.yml': 'vault: vault\ndefault_harness: sleeper\nmax_dispatches_per_round: 2\nlogs: logs\n',
      'harnesses/sleeper.yml': SLEEPER,
      'models.yml': 'sleeper:\n  standard: sleepy\n',
    });
    cleanups.push(() => killRuns(root));

    const spawner = new FakeSpawner();
    let handle: WatchHandle | undefined;
    const watching = startWatch(
      { options: { config: 'board.yml' }, env: { cwd: root, env: {}, stdout: () => undefined, logger: silentLogger(), clock: () => new Date() }, spawner },
      { intervalMs: 3_600_000, debounceMs: 20, poll: false, retryMs: 50 },
    ).then((h) => (handle = h));
    cleanups.push(async () => {
      await watching;
      await handle?.stop();
    });

    // Waves of concurrent ticks while more cards keep arriving, so the watcher's rounds overlap them.
    const pending = path.join(root, 'vault/KANBAN/pending');
    const codes: (number | null)[] = [];
    for (let wave = 0; wave < 4; wave++) {
      for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(pending, `late-${wave}-${i}.md`), newCard(20 + wave * 3 + i));
      codes.push(...(await Promise.all([tick(root), tick(root), tick(root)])));
    }
    await watching;
    expect(codes.every((c) => c === 0)).toBe(true);

    // With two dispatches per round, the watcher and a last few ticks drain the rest.
    const total = 24;
    const inProgress = path.join(root, 'vault/KANBAN/in-progress');
    const claimedNames = () => fs.readdirSync(inProgress).filter((n) => n.endsWith('.md') && !n.startsWith('.'));
    for (let i = 0; i < 20 && claimedNames().length < total; i++) await tick(root);
    await waitFor('every card claimed', () => claimedNames().length === total);
    expect(fs.readdirSync(pending).filter((n) => n.endsWith('.md') && !n.startsWith('.'))).toEqual([]);

    // Each card: exactly one claim in its Record, and exactly one start (the watcher's fake
    // spawner or a tick's supervisor), never both.
    const byWatcher = spawner.jobs.map((j) => path.basename(j.card));
    for (const name of claimedNames()) {
      const text = fs.readFileSync(path.join(inProgress, name), 'utf8');
      expect(text.match(/board: claimed for counter/g), name).toHaveLength(1);
    }
    expect(new Set(byWatcher).size).toBe(byWatcher.length);
    const runsDir = path.join(root, 'vault/KANBAN/.runs');
    await waitFor('every tick-spawned supervisor recorded', () => {
      const runs = fs.existsSync(runsDir) ? fs.readdirSync(runsDir).filter((f) => f.endsWith('.json')) : [];
      return runs.length + byWatcher.length >= total;
    });
    const byTicks = fs.readdirSync(runsDir).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(fs.readFileSync(path.join(runsDir, f), 'utf8')) as { card: string }).card).map((c) => path.basename(c));
    expect(byTicks.filter((c) => byWatcher.includes(c))).toEqual([]);
    expect(new Set(byTicks).size).toBe(byTicks.length);
    expect(byTicks.length + byWatcher.length).toBe(total);
    expect(byWatcher.length).toBeGreaterThan(0);
  }, 120_000);
});
