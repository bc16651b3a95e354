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

  it('says which version the harness was tested with, and warns when the CLI is another', async () => {
    const fixture = makeBoard(harnessesWithFakes(['claude']));
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('claude-code', { config: fixture.config, json: true }, env)).toBe(0);
    const report = JSON.parse(out());
    expect(report.installed.tested).toEqual(['2.1.332']);
    expect(report.installed.testedVersion).toBe(false); // the fake says 9.9.9
    expect(report.warnings.join('\n')).toMatch(/claude 9\.9\.9 is not a version this harness was tested with \(2\.1\.332\)/);
    expect(report.verbs).toMatchObject({ reachable: true });
    expect(report.verbs.detail).toMatch(/board card. answers/);
    expect(report.guard.detail).toMatch(/refuses ~\/\.ssh\/id_rsa/);
    expect(report.notChecked.join('\n')).toMatch(/no model is called/);
  });

  it('a harness of your own: program on its PATH, guard file present, the command shown, and what could not be checked', async () => {
    const dir = harnessesWithFakes([]);
    const fakes = path.join(dir, '..', 'fakes');
    fakeCli(fakes, 'my-agent');
    fs.writeFileSync(path.join(dir, 'guard', 'my-guard.sh'), '#!/bin/sh\nexit 0\n');
    fs.writeFileSync(
      path.join(dir, 'mine.yml'),
      `command: [my-agent, --prompt, "{prompt}"]\nprompt_template: "Do {card}"\nenvironment:\n  PATH: ${fakes}:/usr/bin:/bin\ncredential_guard: guard/my-guard.sh\n`,
    );
    const fixture = makeBoard(dir);
    const { env, out } = commandEnv();
    expect(await harnessCheckCommand('mine', { config: fixture.config, json: true }, env)).toBe(0);
    const report = JSON.parse(out());
    expect(report.installed).toMatchObject({ ok: true, path: path.join(fakes, 'my-agent'), tested: null, testedVersion: null });
    expect(report.guard).toMatchObject({ exists: true, wired: true });
    expect(report.verbs.reachable).toBeNull();
    expect(report.notChecked.join('\n')).toMatch(/guard's wiring/);
    expect(report.notChecked.join('\n')).toMatch(/reachable from the CLI's shell/);
    expect(report.command.args[0]).toBe('--prompt');
  });

  it('without a board.yml it checks the shipped harnesses', async () => {
    const empty = tmp('nowhere');
    let text = '';
    const env: CommandEnv = { cwd: empty, env: { PATH: process.env.PATH }, stdout: (t) => void (text += t), logger: silentLogger(), clock: () => new Date('2026-12-02T09:00:00Z') };
    const code = await harnessCheckCommand('codex', {}, env);
    expect(text).toContain('no board.yml here: checking the harnesses shipped with atomic-board');
    expect(text).toContain(`harness codex (${path.join(HARNESSES, 'codex.yml')})`);
    expect(text).toContain('gpt-6.2-sol');
    expect([0, 1]).toContain(code); // 1 where codex is not installed on the shipped PATH
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it('an unknown harness is a usage error (exit 2)', async () => {
    const fixture = makeBoard();
    const { env } = commandEnv();
    await expect(harnessCheckCommand('nope', { config: fixture.config }, env)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('known: claude-code, codex, local-model, opencode') });
  });

  it('through the built CLI: exit codes 0 / 1 / 2', () => {
    const cli = path.join(REPO, 'dist', 'cli.cjs');
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
