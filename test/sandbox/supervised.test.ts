import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/probe.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `board tick` (the built CLI) dispatches a card to a harness that declares `sandbox:`; its
 * supervisor runs the worker in bubblewrap: the worker writes its output in the vault, cannot
 * write KANBAN/, and the run record says what the sandbox showed.
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'dist', 'cli.cjs');
const probe = probeSandbox();
const canRun = probe.ok && fs.existsSync(path.join(REPO, 'dist', 'sandbox-init.js'));
if (!canRun) console.warn(`SKIPPED test/sandbox/supervised.test.ts: ${probe.ok ? 'dist/ is not built (npm run build)' : probe.reason}`);

const WORKER = `#!/bin/sh
echo "HOME=$HOME TMPDIR=$TMPDIR VERBS=$BOARD_VERBS_URL CONFIG=\${BOARD_CONFIG:-unset}"
echo output > "$BOARD_VAULT/outputs/post.md"
if echo planted > "$BOARD_VAULT/KANBAN/planted.md" 2>/dev/null; then echo "KANBAN writable"; else echo "KANBAN read-only"; fi
`;

describe.skipIf(!canRun)('a supervised, sandboxed worker', () => {
  it('runs in bubblewrap: output written, KANBAN/ untouched, the sandbox in the run record', async () => {
    const root = makeBoard(
      {
        'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post]\nskills: [s]'),
        'KANBAN/pending/post.md': card('function: write\nrequest: a blog post\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []'),
        'outputs/.keep': '',
      },
      {
        'harnesses/fake.yml': `command: ["{harnesses}/fake-agent"]\nprompt_template: p\ncredential_guard: guard.sh\nenvironment:\n  PATH: /usr/bin:/bin\nsandbox:\n  read: ["{harnesses}"]\n`,
        'harnesses/fake-agent': WORKER,
      },
    );
    fs.chmodSync(path.join(root, 'harnesses/fake-agent'), 0o755);
    const tick = spawnSync(process.execPath, [CLI, 'tick', '--config', path.join(root, 'board.yml')], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(tick.status, tick.stderr).toBe(0);
    const runs = path.join(root, 'vault/KANBAN/.runs');
    const record = await waitFor('the run record to say the worker exited', () => {
      const file = fs.existsSync(runs) ? fs.readdirSync(runs).find((f) => f.endsWith('.json')) : undefined;
      if (!file) return undefined;
      const r = JSON.parse(fs.readFileSync(path.join(runs, file), 'utf8')) as { state: string; exitCode?: number; log: string; sandbox?: { confined: boolean; writes?: string[] } };
      return r.state === 'exited' ? r : undefined;
    });
    const log = fs.readFileSync(record.log, 'utf8');
    expect(record.exitCode, log).toBe(0);
    expect(record.sandbox?.confined).toBe(true);
    expect(record.sandbox?.writes).toContain(path.join(root, 'vault'));
    expect(fs.readFileSync(path.join(root, 'vault/outputs/post.md'), 'utf8')).toBe('output\n');
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/planted.md'))).toBe(false);
    expect(log).toContain('KANBAN read-only');
    expect(log).toContain('VERBS=http://127.0.0.1:47002 CONFIG=unset');
    expect(log).toMatch(/HOME=\S*board-run-\S*\/home TMPDIR=\S*board-run-\S*\/tmp/);
    // The run's folders are gone once the worker is.
    const home = /HOME=(\S+)\/home/.exec(log)![1]!;
    await waitFor('the run folder to be removed', () => !fs.existsSync(home));
  });
});
