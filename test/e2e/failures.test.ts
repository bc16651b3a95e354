import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Issue 19, as a new user meets it: a worker that fails says why, in the card's Record, in the
 * tick's output and in `status`, with the log's path; the same failure twice blocks the card; a
 * harness naming a missing script cannot start, and no card spends an attempt on it.
 */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

function board(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const base = 'created: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []';
const WRITER = profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post]');
const SECRET = 'sk-live-0123456789abcdefghij-private';
const REASON = 'ValueError: the input table has no header row';

/** Every run record of the card's, newest last, once each has ended. */
function endedRuns(root: string, count: number): Promise<Array<Record<string, any>>> {
  const dir = path.join(root, 'vault/KANBAN/.runs');
  return waitFor(`${count} ended run(s)`, () => {
    const records = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort().map((n) => JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as Record<string, any>) : [];
    return records.length === count && records.every((r) => r.state === 'exited') ? records : undefined;
  }, 20_000, 50);
}

describe('a failing worker, as a new user sees it', () => {
  it('a crashing Python worker: the reason and the log in the Record, the tick and status; blocked after the same failure twice', async () => {
    // The worker holds only a placeholder for PROVIDER_KEY (the run's proxy holds the key); what it
    // prints of a key-like token it met elsewhere is scrubbed all the same.
    const crash = `import os; print('reading the card with key', os.environ['PROVIDER_KEY'], 'and token sk-live-0123456789abcdef'); raise ValueError('the input table has no header row')`;
    const root = makeBoard(
      { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) },
      {
        'board.yml': 'vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: fake\nlogs: logs\nprivate_env: private.env\n',
        'private.env': `PROVIDER_KEY=${SECRET}\n`,
        'harnesses/fake.yml': `command: ["python3", "-c", ${JSON.stringify(crash)}, "{prompt}"]\nprompt_template: p\nenvironment:\n  PATH: /usr/local/bin:/usr/bin:/bin\ncredential_guard: guard.sh\nenvironment_from_private: [PROVIDER_KEY]\nendpoint: { url_env: PROVIDER_URL, upstream: "http://127.0.0.1:9" }\n`,
      },
    );
    fs.chmodSync(path.join(root, 'private.env'), 0o600);
    const cardFile = path.join(root, 'vault/KANBAN/pending/post.md');

    expect(board(root, ['tick']).code).toBe(0);
    const [first] = await endedRuns(root, 1);
    expect(first!.ended).toBe('exited');
    expect(first!.exitCode).toBe(1);
    expect(first!.reason).toBe(REASON);
    expect(first!.tail).toContain('Traceback (most recent call last):');
    // The key never reached the worker, and the token it printed never reaches the record.
    expect(JSON.stringify(first)).not.toContain(SECRET);
    expect(first!.tail).toContain('board-placeholder-PROVIDER_KEY');
    expect(first!.tail).not.toContain('sk-live-0123456789abcdef');
    expect(first!.tail).toContain('<redacted>');
    const log = first!.log as string;
    expect(fs.readFileSync(log, 'utf8')).toContain(REASON);

    // The next round returns the card and says why, with the log's path.
    const second = board(root, ['tick']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`worker exited (exit code 1) without closing the card: ${REASON} (log: ${log})`);
    const returned = fs.readFileSync(cardFile, 'utf8');
    expect(returned).toContain(`board: worker exited (exit code 1) without closing the card: ${REASON} (log: ${log}); returned to pending/ (attempt 1 of 3).`);
    expect(returned).toContain('attempts: 1');
    const status = board(root, ['status']);
    expect(status.stdout).toContain(`workers that failed (the last failure of each card not closed yet) (1)\n  post.md — exit 1: ${REASON} (log: ${log})`);
    const runs = board(root, ['runs']);
    expect(runs.stdout).toContain(`— ${REASON} (log: ${log})`);
    const shown = board(root, ['show', first!.runId as string]);
    expect(shown.stdout).toContain(`reason   ${REASON}\nlog      ${log}`);
    expect(shown.stdout).toMatch(/end of its log\n(.*\n)*  Traceback \(most recent call last\):/);

    // The same failure again: blocked with that reason, the third attempt not spent.
    expect(board(root, ['tick']).code).toBe(0);
    const records = await endedRuns(root, 2);
    const log2 = records[1]!.log as string;
    expect(records[1]!.reason).toBe(REASON);
    const fourth = board(root, ['tick']);
    expect(fourth.stdout).toContain('blocked: the same failure twice in a row');
    const blocked = fs.readFileSync(cardFile, 'utf8');
    expect(blocked).toContain('attempts: 2');
    expect(blocked).toMatch(new RegExp(`^blocked: .*the same failure twice in a row: ${REASON} \\(log: ${log2.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`, 'm'));
    expect(blocked).toContain(`blocked: the same failure twice in a row: ${REASON} (log: ${log2}); retrying would repeat it. A human clears \`blocked\` to release it.`);
    expect(board(root, ['status']).stdout).toContain(`post.md — the same failure twice in a row: ${REASON} (log: ${log2})`);
  }, 60_000);

  it("a verb the board refused to the worker is the run's reason", async () => {
    // The worker asks to yield to a child that does not exist, then gives up: only the board's refusal says why.
    const worker = 'node "$BOARD_BIN" card yield "$BOARD_CARD" --until no-such-child.md; exit 3';
    const root = makeBoard(
      { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) },
      { 'harnesses/fake.yml': `command: ["sh", "-c", ${JSON.stringify(worker)}, "{prompt}"]\nprompt_template: p\ncredential_guard: guard.sh\n` },
    );
    expect(board(root, ['tick']).code).toBe(0);
    const [run] = await endedRuns(root, 1);
    expect(run!.exitCode).toBe(3);
    expect(run!.reason).toMatch(/^board card yield refused: /);
    const second = board(root, ['tick']);
    expect(second.stdout).toContain(`worker exited (exit code 3) without closing the card: ${run!.reason as string}`);
  }, 60_000);
});

describe('a harness naming a missing script', () => {
  it('cannot start: lint, dry-run and status say so, and the card spends no attempt', () => {
    const root = makeBoard(
      { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) },
      {
        'harnesses/team_worker.py': 'print("working")\n',
        'harnesses/fake.yml': 'command: ["python3", "{harnesses}/team_wroker.py", "{prompt}"]\nprompt_template: p\ncredential_guard: guard.sh\n',
      },
    );
    const why = `its command names {harnesses}/team_wroker.py, which does not exist (${path.join(root, 'harnesses/team_wroker.py')}) (did you mean team_worker.py?)`;
    const lint = board(root, ['lint']);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain(`fake.yml: command: harness fake cannot start: ${why}`);
    const dry = JSON.parse(board(root, ['dry-run', '--json']).stdout);
    expect(dry.dispatch).toEqual([]);
    expect(dry.waiting).toEqual([{ card: 'post.md', kind: 'harness', reason: `ready for writer, but harness fake cannot start: ${why}` }]);
    const status = board(root, ['status']);
    expect(status.stdout).toContain(`harnesses that cannot start (their cards wait) (1)\n  fake — ${why}`);
    const check = board(root, ['harness', 'check', 'fake']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`cannot start (${why})`);
    expect(check.stdout).not.toContain('CLI not installed');
    expect(board(root, ['tick']).code).toBe(0);
    const after = fs.readFileSync(path.join(root, 'vault/KANBAN/pending/post.md'), 'utf8');
    expect(after).toContain('attempts: 0');
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/.runs'))).toBe(false);
  });
});
