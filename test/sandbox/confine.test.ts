import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareConfinement, type Confinement, type RunSandbox } from '../../src/sandbox/confine.js';
import { probeSandbox } from '../../src/sandbox/probe.js';
import type { ComposedCommand } from '../../src/core/compose.js';

/**
 * A real worker (a Node script) run through prepareConfinement + bubblewrap + sandbox-init +
 * apply-seccomp tries to read canaries, write where it may not, reach the host's loopback and make
 * a Unix socket; it must fail at each, still write its output and reach its bridge. The same
 * script unconfined reads every canary: proof that the test tests something.
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const INIT = path.join(REPO, 'dist', 'sandbox-init.js');
const ATTEMPTS = path.join(import.meta.dirname, 'fixtures', 'attempts.mjs');
const probe = probeSandbox();
const canRun = probe.ok && fs.existsSync(INIT);
if (!canRun) console.warn(`SKIPPED test/sandbox/confine.test.ts: ${probe.ok ? `${INIT} is not built (npm run build)` : probe.reason}`);

function run(command: ComposedCommand): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command.file, [...command.args], { cwd: command.cwd, env: { ...command.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function resultOf(out: { stdout: string; stderr: string }): Record<string, string> {
  const line = out.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Record<string, string>;
  } catch {
    throw new Error(`the worker printed no result: ${out.stdout}\n${out.stderr}`);
  }
}

describe.skipIf(!canRun)('a confined worker (bubblewrap + seccomp)', () => {
  let root: string;
  let board: { config: string; privateEnv: string; logs: string; vault: string; kanban: string; harnesses: string };
  let homeCanary: string;
  let other: Confinement;
  let tcp: net.Server;
  let tcpPort: number;
  let echo: net.Server | undefined;
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-sandbox-test-'));

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-sandbox-board-'));
    board = {
      config: path.join(root, 'board.yml'),
      // Inside the vault, on purpose: they must be masked there (a file by /dev/null, a folder by a tmpfs).
      privateEnv: path.join(root, 'vault', '.private.env'),
      logs: path.join(root, 'vault', 'logs'),
      vault: path.join(root, 'vault'),
      kanban: path.join(root, 'vault', 'KANBAN'),
      harnesses: path.join(root, 'harnesses'),
    };
    fs.mkdirSync(board.vault, { recursive: true });
    fs.writeFileSync(board.config, 'vault: vault\ndefault_harness: script\n# canary-config\n');
    fs.writeFileSync(board.privateEnv, 'ANTHROPIC_API_KEY=canary-private-key\n');
    fs.mkdirSync(path.join(board.logs, 'journal'), { recursive: true });
    fs.writeFileSync(path.join(board.logs, 'canary.txt'), 'canary-logs\n');
    fs.mkdirSync(path.join(board.kanban, 'in-progress'), { recursive: true });
    fs.mkdirSync(path.join(board.vault, 'outputs'), { recursive: true });
    fs.mkdirSync(board.harnesses, { recursive: true });
    fs.copyFileSync(ATTEMPTS, path.join(board.harnesses, 'attempts.mjs'));
    homeCanary = path.join(os.homedir(), `.board-sandbox-canary-${process.pid}`);
    fs.writeFileSync(homeCanary, 'canary-home\n');
    // Another run's folder, with a file of its own.
    other = prepareConfinement({ runId: 'other-run', kanbanDir: board.kanban, command: command([]), sandbox: sandbox() }, { tmpDir, initScript: INIT });
    fs.writeFileSync(path.join(other.runDir, 'home', 'canary.txt'), 'canary-other-run\n');
    tcp = net.createServer((s) => s.end('host loopback\n'));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    tcpPort = (tcp.address() as net.AddressInfo).port;
  });

  afterAll(() => {
    tcp?.close();
    echo?.close();
    other?.close();
    fs.rmSync(homeCanary, { force: true });
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  function sandbox(): RunSandbox {
    return { confined: true, declared: { read: [], write: [], hosts: [] }, vault: board.vault, harnessesDir: board.harnesses, configFile: board.config, privateEnvFile: board.privateEnv, logsDir: board.logs };
  }

  function command(args: string[]): ComposedCommand {
    return {
      file: 'node',
      args: [path.join(board.harnesses, 'attempts.mjs'), ...args],
      cwd: board.vault,
      env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, BOARD_CONFIG: board.config, ANTHROPIC_API_KEY: 'placeholder' },
      prompt: '',
      privateNames: [],
    };
  }

  function plan(bridgePort: number) {
    return JSON.stringify({
      read: {
        'home canary': homeCanary,
        config: board.config,
        'private env': board.privateEnv,
        'logs canary': path.join(board.logs, 'canary.txt'),
        'other run': path.join(other.runDir, 'home', 'canary.txt'),
        '/etc/shadow': '/etc/shadow',
      },
      write: {
        KANBAN: path.join(board.kanban, 'in-progress', 'planted.md'),
        'next to the vault': path.join(root, 'planted.txt'),
        logs: path.join(board.logs, 'journal', 'planted.ndjson'),
        output: path.join(board.vault, 'outputs', 'out.md'),
      },
      tcpPort,
      bridgePort,
    });
  }

  it('reads no canary, writes only its output and run folder, reaches nothing but its bridge', async () => {
    const confinement = prepareConfinement({ runId: 'attack-run', kanbanDir: board.kanban, command: command([]), sandbox: sandbox() }, { tmpDir, initScript: INIT });
    try {
      echo = net.createServer((s) => s.pipe(s));
      await new Promise<void>((r) => echo!.listen(confinement.verbsSocket, r));
      const wrapped = { ...confinement.command, args: [...confinement.command.args, plan(47002)] };
      const out = await run(wrapped);
      const r = resultOf(out);
      for (const name of ['home canary', 'config', 'private env', 'logs canary', 'other run', '/etc/shadow']) expect(r[`read ${name}`], `read ${name}`).not.toBe('ok');
      expect(r['write KANBAN']).toBe('EROFS');
      // Outside the binds a write lands in the sandbox's own tmpfs, or nowhere: what counts is the host (below).
      expect(r['write logs']).not.toBe('ok');
      expect(r['write output']).toBe('ok');
      expect(fs.readFileSync(path.join(board.vault, 'outputs', 'out.md'), 'utf8')).toBe('written from the worker\n');
      expect(fs.existsSync(path.join(board.kanban, 'in-progress', 'planted.md'))).toBe(false);
      expect(fs.existsSync(path.join(root, 'planted.txt'))).toBe(false);
      expect(fs.existsSync(path.join(board.logs, 'journal', 'planted.ndjson'))).toBe(false);
      expect(r['tcp host']).not.toBe('ok');
      expect(r['unix socket']).toBe('EPERM');
      expect(r['bridge echo']).toBe('ok');
      expect(r.home).toBe(path.join(confinement.runDir, 'home'));
      expect(out.code).toBe(0);
    } finally {
      echo?.close();
      echo = undefined;
      confinement.close();
    }
    expect(fs.existsSync(confinement.runDir)).toBe(false);
    expect(fs.existsSync(confinement.socketDir)).toBe(false);
  });

  it('unconfined (`sandbox: none`), the same worker reads every canary: the test above tests something', async () => {
    const c = command([plan(47002)]);
    const out = await run({ ...c, env: { ...c.env, TMPDIR: tmpDir } });
    const r = resultOf(out);
    for (const name of ['home canary', 'config', 'private env', 'logs canary', 'other run', '/etc/shadow']) expect(r[`read ${name}`], `read ${name}`).toBe('ok');
    expect(r['write KANBAN']).toBe('ok');
    expect(r['tcp host']).toBe('ok');
    expect(r['unix socket']).toBe('ok');
  });
});
