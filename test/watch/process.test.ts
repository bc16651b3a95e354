import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor as waitUntil } from '../helpers/wait.js';

/** `board watch` as a real process (`npm test` builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function startWatchProcess(root: string, ...args: string[]) {
  const child = spawn(process.execPath, [CLI, 'watch', '--config', 'board.yml', '--interval', '1h', '--debounce', '50ms', ...args], {
    cwd: root,
    env: { ...process.env, BOARD_CONFIG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, out: () => stdout, err: () => stderr };
}

const waitFor = (what: string, probe: () => boolean, timeoutMs = 30_000) => waitUntil(what, probe, timeoutMs, 50);

// A card addressed to a human: every round sees it and dispatches nothing, so no worker is spawned.
const VAULT = {
  'AGENTS/counter/PROFILE.md': profile('counter', 'function: count\nhandles: [count words]\nskills: [count-words]'),
  'KANBAN/pending/for-ana.md': card('function: count\nrequest: count words\ncreated: 2026-12-01 09:00\norigin: human\nrecipient: Ana\nattempts: 0\npaths: []'),
};

describe('board watch as a process', () => {
  it('exits 0 on SIGTERM after its round, with the lock released', async () => {
    const root = makeBoard(VAULT);
    const w = startWatchProcess(root);
    await waitFor('the first round', () => /round at .* \(start\)/.test(w.out()));
    // A change makes it run again: the watcher is live in the real process too.
    fs.writeFileSync(path.join(root, 'vault/KANBAN/pending/for-bob.md'), card('function: count\nrequest: count words\ncreated: 2026-12-01 09:00\norigin: human\nrecipient: Bob\nattempts: 0\npaths: []'));
    await waitFor('a round on the change', () => /round at .* \(change\)/.test(w.out()));
    w.child.kill('SIGTERM');
    const { code } = await w.exited;
    expect(code, w.err()).toBe(0);
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/.board.lock'))).toBe(false);
    expect(w.err()).toContain('board watch stopped');
  });

  it('exits 0 on SIGINT too', async () => {
    const root = makeBoard(VAULT);
    const w = startWatchProcess(root, '--poll', '--poll-interval', '200ms');
    await waitFor('the first round', () => /round at/.test(w.out()));
    w.child.kill('SIGINT');
    expect((await w.exited).code).toBe(0);
  });

  it('exits 2 on a bad config, before watching anything', async () => {
    const root = makeBoard(VAULT, { 'board.yml': 'vault: vault\n' });
    const w = startWatchProcess(root);
    expect((await w.exited).code).toBe(2);
    expect(w.err()).toContain('default_harness');
  });

  it('exits 2 on a bad duration', async () => {
    const root = makeBoard(VAULT);
    const w = startWatchProcess(root, '--debounce', 'soon');
    expect((await w.exited).code).toBe(2);
    expect(w.err()).toContain('--debounce');
  });
});
