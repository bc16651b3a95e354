import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { hostIdentity } from '../../src/vault/host-identity.js';
import { card, makeBoard, profile, read, snapshotTree } from '../helpers/vault.js';
import { waitFor as waitUntil } from '../helpers/wait.js';

/** These tests run the built CLI (`npm test` builds first) as a real process. */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const NOW = '2026-12-02T10:00:00.000Z';

function board(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const waitFor = <T>(what: string, probe: () => T | undefined, timeoutMs = 20_000) => waitUntil(what, probe, timeoutMs, 50);

const RECORDER = `
import fs from 'node:fs';
import path from 'node:path';
const out = path.join(process.env.RECORD_DIR, process.env.BOARD_RUN + '.json');
fs.writeFileSync(out, JSON.stringify({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() }));
`;

const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');
const HOSTILE_REQUEST = 'Write a draft; $(touch pwned) `touch pwned2` && echo {model} > pwned3 | cat /etc/passwd';

function recordingBoard() {
  const recordDir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-record-'));
  const root = makeBoard(
    {
      'AGENTS/writer/PROFILE.md': WRITER,
      'KANBAN/pending/hostile.md': card(`function: write\nrequest: "${HOSTILE_REQUEST}"\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []`),
    },
    {
      'board.yml': `vault: vault\ndefault_harness: recorder\nprivate_env: private.env\nlogs: logs\n`,
      'private.env': '# provider keys\nPROVIDER_KEY=sk-very-secret-value-123\nUNUSED=other\n',
      'harnesses/recorder.yml': [
        `command: ["${process.execPath}", "${'{harnesses}'}", "--model={model}", "{prompt}"]`,
        'prompt_template: "Work {card} as {profile}"',
        'environment:',
        '  HOME: /nonexistent-home',
        `  RECORD_DIR: "${recordDir}"`,
        'environment_from_private: [PROVIDER_KEY]',
        // The key goes to the run's credential proxy, toward this endpoint only; the recorder
        // writes outside the vault, which the sandbox allows only when the harness declares it.
        'endpoint: { url_env: PROVIDER_URL, upstream: "http://127.0.0.1:9" }',
        `sandbox: { write: ["${recordDir}"] }`,
        'credential_guard: guard.sh',
      ].join('\n'),
      'harnesses/guard.sh': '#!/bin/sh\nexit 0\n',
      'harnesses/record.mjs': RECORDER,
      'models.yml': 'recorder:\n  standard: model-x\n',
    },
  );
  // The recorder script's absolute path, written where the template names it.
  const harnessFile = path.join(root, 'harnesses/recorder.yml');
  fs.writeFileSync(harnessFile, read(root, 'harnesses/recorder.yml').replace('{harnesses}', path.join(root, 'harnesses/record.mjs')));
  return { root, recordDir };
}

describe('board CLI as a process', () => {
  beforeAll(() => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` (npm test does)');
  });

  it('spawns the worker confined, with the template argv (no shell), and a placeholder where its private key would be', async () => {
    const { root, recordDir } = recordingBoard();
    const result = board(root, 'tick', '--now', NOW);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hostile.md → writer');

    const recorded = await waitFor('the recording worker', () => {
      const files = fs.readdirSync(recordDir);
      return files.length > 0 ? (JSON.parse(fs.readFileSync(path.join(recordDir, files[0]!), 'utf8')) as { argv: string[]; env: Record<string, string>; cwd: string }) : undefined;
    });
    const vault = path.join(root, 'vault');
    const cardPath = path.join(vault, 'KANBAN/in-progress/hostile.md');
    expect(recorded.argv).toEqual(['--model=model-x', `Work ${cardPath} as ${path.join(vault, 'AGENTS/writer/PROFILE.md')}`]);
    expect(recorded.cwd).toBe(vault);
    // The key stays with the run's proxy: the worker has a placeholder and the proxy's URL.
    expect(recorded.env.PROVIDER_KEY).toBe('board-placeholder-PROVIDER_KEY');
    expect(recorded.env.PROVIDER_URL).toBe('http://127.0.0.1:47001');
    expect(recorded.env.UNUSED).toBeUndefined();
    // HOME and TMPDIR are the run's own folder (the sandbox's), never the board's.
    expect(recorded.env.HOME).toMatch(/\/board-run-[^/]+\/home$/);
    expect(recorded.env.TMPDIR).toMatch(/\/board-run-[^/]+\/tmp$/);
    expect(recorded.env.BOARD_CARD).toBe(cardPath);
    expect(recorded.env.BOARD_CLAIM).toBe(NOW);
    expect(recorded.env.BOARD_CONFIG).toBeUndefined();
    expect(recorded.env.BOARD_BIN).toBe('/run/board/bin/board');
    // Nothing of the dispatcher's own environment leaks in but PATH (bubblewrap sets PWD).
    expect(Object.keys(recorded.env).filter((k) => !k.startsWith('BOARD_')).sort()).toEqual(['HOME', 'PATH', 'PROVIDER_KEY', 'PROVIDER_URL', 'PWD', 'RECORD_DIR', 'TMPDIR']);

    // The hostile request never reached a shell.
    for (const f of ['pwned', 'pwned2', 'pwned3']) {
      expect(fs.existsSync(path.join(vault, f))).toBe(false);
      expect(fs.existsSync(path.join(root, f))).toBe(false);
    }
    // The secret is nowhere: not in the worker's environment, stdout, logs, cards or run records.
    await waitFor('the run to end', () => {
      const runs = fs.readdirSync(path.join(vault, 'KANBAN/.runs'));
      return runs.length > 0 && read(root, `vault/KANBAN/.runs/${runs[0]}`).includes('"exited"') ? true : undefined;
    });
    const everything = [...snapshotTree(root).entries()].filter(([f]) => f !== 'private.env').map(([, b64]) => Buffer.from(b64, 'base64').toString('utf8'));
    expect(everything.join('\n')).not.toContain('sk-very-secret-value-123');
    expect(result.stdout + result.stderr).not.toContain('sk-very-secret-value-123');
  });

  it('dry-run --json prints the contract shape and writes nothing', () => {
    const { root } = recordingBoard();
    const before = snapshotTree(root);
    const result = board(root, 'dry-run', '--json', '--now', NOW);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(plan).toMatchObject({
      dispatch: [{ card: 'hostile.md', profile: 'writer', harness: 'recorder', model: 'model-x' }],
      waiting: [],
      blocked: [],
      scheduled: [],
      zombies: [],
    });
    expect(snapshotTree(root)).toEqual(before);
  });

  it('logs JSON lines on stderr and keeps stdout for people', () => {
    const { root } = recordingBoard();
    const result = board(root, 'dry-run', '--now', NOW);
    expect(result.stdout).toMatch(/^dry-run at 2026-12-02T10:00:00.000Z/);
    for (const line of result.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('exits 2 naming the file and the field for a bad config', () => {
    const root = makeBoard({}, { 'board.yml': 'vault: vault\ndefault_harness: fake\nmax_attempts: lots\n' });
    const result = board(root, 'tick');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(root, 'board.yml')} (line 3): \`max_attempts\` must be a whole number of attempts before a card is blocked, e.g. \`max_attempts: 3\`; found text`);
  });

  it('exits 2 for a missing config and for a bad --now', () => {
    const root = makeBoard({});
    expect(board(root, 'tick', '--config', 'nope.yml').code).toBe(2);
    const badNow = board(root, 'dry-run', '--now', 'yesterday');
    expect(badNow.code).toBe(2);
    expect(badNow.stderr).toContain('--now');
  });

  it('exits 1 when the vault has no board', () => {
    const root = makeBoard({}, { 'board.yml': 'vault: nowhere\ndefault_harness: fake\n' });
    const result = board(root, 'tick');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no board at');
  });

  it('exits 0 and says so when another round holds the lock; takes over a dead holder', () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER });
    const kanban = path.join(root, 'vault/KANBAN');
    // The owner is recorded inside the lock folder (src/vault/lock.ts).
    fs.mkdirSync(path.join(kanban, '.board.lock'));
    fs.writeFileSync(path.join(kanban, '.board.lock/owner.json'), JSON.stringify({ pid: process.pid, ...hostIdentity(), since: NOW }));
    const held = board(root, 'tick');
    expect(held.code).toBe(0);
    expect(held.stdout).toContain(`tick skipped: a round is already running on this vault (pid ${process.pid}`);
    expect(held.stdout).toContain('which is running');

    // A holder that died on this host: a pid that cannot exist.
    fs.writeFileSync(path.join(kanban, '.board.lock/owner.json'), JSON.stringify({ pid: 2 ** 22 + 17, ...hostIdentity(), since: NOW }));
    const taken = board(root, 'tick');
    expect(taken.code).toBe(0);
    expect(taken.stdout).toContain('tick at');
    expect(taken.stderr).toContain('took over the round lock');
    expect(fs.existsSync(path.join(kanban, '.board.lock'))).toBe(false);

    // A lock with no owner (a crash between creating it and recording its owner): staleness only.
    fs.mkdirSync(path.join(kanban, '.board.lock'));
    const ago = new Date(Date.now() - 10_000);
    fs.utimesSync(path.join(kanban, '.board.lock'), ago, ago);
    const ownerless = board(root, 'tick');
    expect(ownerless.code).toBe(0);
    expect(ownerless.stdout).toContain('no owner record');
    expect(ownerless.stdout).toContain('judged by staleness only');
  });

  it('--help is true to the commands and options', () => {
    const help = board(os.tmpdir(), 'tick', '--help');
    expect(help.code).toBe(0);
    for (const flag of ['--config', '--vault', '--now', '--json']) expect(help.stdout).toContain(flag);
    expect(board(os.tmpdir(), 'no-such-command').code).toBe(2);
  });
});

describe('read-only commands end as soon as they have answered', () => {
  it('a dry-run whose plan is larger than a pipe holds, read slowly, arrives whole; exit codes stay honest', async () => {
    // 3000 waiting cards: a plan of a few hundred KB through a pipe that holds 64 KB, read late.
    const files: Record<string, string> = { 'AGENTS/writer/PROFILE.md': WRITER };
    for (let i = 0; i < 3000; i++) files[`KANBAN/pending/card-${String(i).padStart(4, '0')}.md`] = card(`function: translate\nrequest: "a letter ${i}"\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []`);
    const root = makeBoard(files);
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, 'dry-run', '--json', '--now', NOW], { cwd: root, env: { ...process.env, BOARD_CONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.length).toBeGreaterThan(256 * 1024);
    const plan = JSON.parse(text) as { waiting: unknown[] };
    expect(plan.waiting).toHaveLength(3000);

    // An exit code set by the command survives the early exit: lint's finding is exit 1.
    fs.writeFileSync(path.join(root, 'vault/AGENTS/writer/PROFILE.md'), '---\nname: writer\n---\n');
    const lint = board(root, 'lint');
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain('PROFILE.md');
  }, 60_000);
});
