import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessCheckCommand } from '../../src/commands/harness-check.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { HARNESSES, NODE_DIR, REPO, SECRETS, fakeCli, makeBoard, tmp } from './fixtures.js';

/** The shipped harnesses, copied, with the fake CLIs' folder (and node) first on their PATH. */
function harnessesWithFakes(clis: string[]): string {
  const dir = path.join(tmp('harnesses'), 'harnesses');
  fs.cpSync(HARNESSES, dir, { recursive: true });
  const fakes = path.join(dir, '..', 'fakes');
  for (const cli of clis) fakeCli(fakes, cli);
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.yml'))) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('PATH: /usr/local/bin:/usr/bin:/bin', `PATH: ${fakes}:${NODE_DIR}:/usr/bin:/bin`));
  }
  return dir;
}

function commandEnv(): { env: CommandEnv; out: () => string } {
  let text = '';
  return {
    env: { cwd: REPO, env: { PATH: process.env.PATH }, stdout: (t) => void (text += t), logger: silentLogger(), clock: () => new Date('2026-12-02T09:00:00Z') },
    out: () => text,
  };
}

describe('board harness check', () => {
  it('installed and guarded: version, guard, redacted env and the exact argv; exit 0', async () => {
    const fixture = makeBoard(harnessesWithFakes(['claude']));
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('claude-code', { config: fixture.config }, env)).toBe(0);
    const text = out();
    expect(text).toContain('installed: claude 9.9.9 (fake claude)');
    expect(text).toContain('wired: PreToolUse hook');
    expect(text).toContain('ANTHROPIC_API_KEY=<private>');
    expect(text).toContain('--model claude-sonnet-5-5');
    expect(text).toContain(`BOARD_CARD=${path.join(fixture.vault, 'KANBAN', 'in-progress', 'example.md')}`);
    expect(text).toContain('verdict:  ready');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it('--json: one document with the composed command, private values redacted', async () => {
    const dir = harnessesWithFakes(['codex']);
    const fixture = makeBoard(dir);
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('codex', { config: fixture.config, json: true, card: 'x.md', capacity: 'advanced' }, env)).toBe(0);
    const report = JSON.parse(out());
    expect(report.installed).toMatchObject({ ok: true, cli: 'codex', version: '9.9.9 (fake codex)' });
    expect(report.guard).toMatchObject({ declared: 'guard/codex.rules', exists: true, wired: true });
    expect(report.model.value).toBe('gpt-6.2-astra');
    expect(report.command.file).toBe('node');
    expect(report.command.args.slice(0, 4)).toEqual([path.join(dir, 'bin', 'codex-isolated.mjs'), 'exec', '--model', 'gpt-6.2-astra']);
    expect(report.command.env.OPENAI_API_KEY).toBe('<private>');
    expect(report.command.env.BOARD_CARD.endsWith(path.join('in-progress', 'x.md'))).toBe(true);
    expect(JSON.stringify(report)).not.toContain(SECRETS.OPENAI_API_KEY);
  });

  it('CLI not installed: says so and exits 1, still showing the command', async () => {
    const fixture = makeBoard(harnessesWithFakes([]));
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('opencode', { config: fixture.config }, env)).toBe(1);
    expect(out()).toContain('NOT INSTALLED: opencode not found');
    expect(out()).toContain('wired: plugin guard/opencode-plugin.mjs');
    expect(out()).toContain('argv  node ');
  });

  it('a guard that is declared but missing is not wired: exit 1', async () => {
    const dir = harnessesWithFakes(['claude']);
    fs.rmSync(path.join(dir, 'guard', 'claude-pretooluse.mjs'));
    const fixture = makeBoard(dir);
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('claude-code', { config: fixture.config }, env)).toBe(1);
    expect(out()).toContain('NOT WIRED');
  });

  it('an unknown harness is a usage error (exit 2)', async () => {
    const fixture = makeBoard();
    const { env } = commandEnv();
    await expect(harnessCheckCommand('nope', { config: fixture.config }, env)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('known: claude-code, codex, local-model, opencode') });
  });

  it('through the built CLI: exit codes 0 / 1 / 2', () => {
    const cli = path.join(REPO, 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error('run `npm run build` first');
    const fixture = makeBoard(harnessesWithFakes(['claude']));
    const run = (name: string) => spawnSync(process.execPath, [cli, 'harness', 'check', name, '--config', fixture.config], { encoding: 'utf8' });
    expect(run('claude-code').status).toBe(0);
    expect(run('codex').status).toBe(1);
    const unknown = run('nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no harness named "nope"');
  });
});
