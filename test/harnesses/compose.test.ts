import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeCommand } from '../../src/core/compose.js';
import { harnessSchema } from '../../src/schema/harness.js';
import { CARD_NAME, HARNESSES, NODE_DIR, SECRETS, SHIPPED, compose, fakeCli, readRecord, tmp } from './fixtures.js';

const WRAPPERS: Record<string, string> = {
  'claude-code': 'claude-isolated.mjs',
  codex: 'codex-isolated.mjs',
  opencode: 'opencode-isolated.mjs',
  'local-model': 'local-model-worker.mjs',
};

describe('{harnesses} in command elements', () => {
  const harness = harnessSchema.parse({ command: ['node', '{harnesses}/bin/x.mjs', '{prompt}'], prompt_template: 'card {card} {harnesses}' });
  const base = { harness, model: 'm', profile: '/v/AGENTS/p/PROFILE.md', card: '/v/KANBAN/in-progress/c.md', vault: '/v', privateEnv: new Map(), boardEnv: {}, fallbackPath: '/bin', resolveDir: (d: string) => d };

  it('is substituted with the harnesses folder, once, and never inside the substituted prompt', () => {
    const result = composeCommand({ ...base, harnessesDir: '/opt/board/harnesses' });
    expect(result.ok && result.command.args).toEqual(['/opt/board/harnesses/bin/x.mjs', 'card /v/KANBAN/in-progress/c.md {harnesses}']);
  });

  it('is left as written when no harnesses folder is given', () => {
    const result = composeCommand(base);
    expect(result.ok && result.command.args[0]).toBe('{harnesses}/bin/x.mjs');
  });
});

describe.each(SHIPPED)('shipped harness %s against a fixture card', (name) => {
  it('composes argv, env and cwd the way the tick would spawn them', async () => {
    const { command, model, vault, card, config, board } = await compose(name);
    expect(command.file).toBe('node');
    expect(command.args[0]).toBe(path.join(HARNESSES, 'bin', WRAPPERS[name]!));
    expect(fs.existsSync(command.args[0]!)).toBe(true);
    expect(command.args).toContain(model);
    expect(command.args).toContain(command.prompt);
    // The local-model worker finds the card through BOARD_CARD; its prompt is the model's instructions.
    expect(command.prompt).toContain(name === 'local-model' ? vault : card);
    expect(command.cwd).toBe(vault);
    expect(command.env).toMatchObject({ PATH: '/usr/local/bin:/usr/bin:/bin', BOARD_CARD: card, BOARD_VAULT: vault, BOARD_CONFIG: config, BOARD_CLAIM: '2026-12-01T09:00:00.000Z' });
    expect(command.env.HOME).toBeUndefined(); // the wrappers give each run its own HOME
    const harness = board.harnesses.get(name)!;
    expect(harness.credential_guard).toBeTruthy();
    expect(fs.existsSync(path.join(HARNESSES, harness.credential_guard!))).toBe(true);
    for (const key of harness.environment_from_private) expect(command.env[key]).toBe(SECRETS[key as keyof typeof SECRETS]);
  });

  it('keeps every private key out of the argv and the prompt', async () => {
    const { command } = await compose(name);
    const visible = [command.file, ...command.args, command.prompt].join('\n');
    for (const secret of Object.values(SECRETS)) expect(visible).not.toContain(secret);
    expect(command.privateNames.every((k) => !visible.includes(command.env[k]!))).toBe(true);
  });
});

/** Run a composed command with fake CLIs first on PATH (and node reachable), like the supervisor does. */
function runComposed(command: { file: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string }, fakeDir: string, extra: Record<string, string> = {}) {
  const record = path.join(tmp('record'), 'record.json');
  const out = spawnSync(command.file, [...command.args], {
    cwd: command.cwd,
    env: { ...command.env, PATH: `${fakeDir}:${NODE_DIR}:${command.env.PATH}`, FAKE_RECORD: record, ...extra },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { out, record };
}

describe('the isolated wrappers, with fake CLIs on PATH', () => {
  it('claude-code: fresh HOME and CLAUDE_CONFIG_DIR, guard hook wired, vault granted, argv passed through', async () => {
    const { command, vault } = await compose('claude-code');
    const fakes = tmp('fakes');
    fakeCli(fakes, 'claude');
    const { out, record } = runComposed(command, fakes);
    expect(out.status, out.stderr).toBe(0);
    const seen = readRecord(record);
    const configDir = seen.env.CLAUDE_CONFIG_DIR!;
    expect(seen.argv).toEqual([...command.args.slice(1), '--settings', path.join(configDir, 'settings.json'), '--add-dir', vault]);
    expect(seen.env.HOME).not.toBe(os.homedir());
    expect(seen.env.HOME!.startsWith(os.tmpdir())).toBe(true);
    expect(seen.homeEntries).toEqual([]); // empty: no memory, no rules, no skills
    expect(seen.cwd.startsWith(os.tmpdir()) && !seen.cwd.startsWith(vault)).toBe(true);
    const settings = JSON.parse(seen.files[path.join(configDir, 'settings.json')]!);
    expect(settings.hooks.PreToolUse[0].matcher).toBe('*');
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toContain(path.join(HARNESSES, 'guard', 'claude-pretooluse.mjs'));
    expect(Object.keys(seen.files)).toEqual([path.join(configDir, 'settings.json')]);
    expect(seen.env.ANTHROPIC_API_KEY).toBe(SECRETS.ANTHROPIC_API_KEY); // the CLI gets the key through its env only
    expect(fs.existsSync(seen.env.HOME!)).toBe(false); // the run folder is gone
  });

  it('codex: fresh CODEX_HOME whose config strips keys from shells, execpolicy rules in place, cwd the vault', async () => {
    const { command, vault } = await compose('codex');
    const fakes = tmp('fakes');
    fakeCli(fakes, 'codex');
    const { out, record } = runComposed(command, fakes);
    expect(out.status, out.stderr).toBe(0);
    const seen = readRecord(record);
    // The wrapper adds --dangerously-bypass-hook-trust right after `exec`: the hook is its own.
    expect(seen.argv).toEqual(['exec', '--dangerously-bypass-hook-trust', ...command.args.slice(2)]);
    expect(seen.argv).toEqual(['exec', '--dangerously-bypass-hook-trust', '--model', 'gpt-6.2-sol', '--sandbox', 'workspace-write', '--skip-git-repo-check', '--ephemeral', command.prompt]);
    expect(seen.cwd).toBe(fs.realpathSync(vault));
    const home = seen.env.CODEX_HOME!;
    const config = seen.files[path.join(home, 'config.toml')]!;
    expect(config).toMatch(/approval_policy = "never"/);
    expect(config).toMatch(/project_doc_max_bytes = 0/);
    expect(config).toMatch(/\[shell_environment_policy\][\s\S]*exclude = \["\*KEY\*", "\*SECRET\*", "\*TOKEN\*"/);
    expect(config).toMatch(/network_access = false/);
    expect(config).toMatch(/^allow_login_shell = false$/m);
    expect(config).toMatch(/^web_search = "disabled"$/m);
    expect(config).toMatch(/\[agents\]\nenabled = false/);
    expect(config).toMatch(/exclude_slash_tmp = true/);
    expect(config).toContain(`writable_roots = [${JSON.stringify(path.join(path.dirname(vault), 'logs'))}]`);
    expect(config).toContain('[[hooks.PreToolUse]]');
    expect(config).toContain(path.join(HARNESSES, 'guard', 'claude-pretooluse.mjs'));
    // `board` and the credential-skipping grep are first on the CLI's PATH.
    const bin = seen.env.PATH!.split(':')[0]!;
    expect(fs.existsSync(bin)).toBe(false); // gone with the run folder
    expect(bin.endsWith('/bin') && bin.startsWith(path.dirname(home))).toBe(true);
    expect(seen.files[path.join(home, 'rules', 'board-credential-guard.rules')]).toContain('decision = "forbidden"');
    expect(seen.env.CODEX_API_KEY).toBe(SECRETS.OPENAI_API_KEY);
    expect(seen.env.HOME!.startsWith(os.tmpdir())).toBe(true);
    expect(fs.existsSync(home)).toBe(false);
  });

  it("codex inside the board's sandbox (BOARD_SANDBOX): Codex's own bubblewrap sandbox off, logs/ not writable", async () => {
    const { command } = await compose('codex');
    const fakes = tmp('fakes');
    fakeCli(fakes, 'codex');
    const { out, record } = runComposed(command, fakes, { BOARD_SANDBOX: 'bwrap' });
    expect(out.status, out.stderr).toBe(0);
    const seen = readRecord(record);
    expect(seen.argv).toEqual(['exec', '--dangerously-bypass-hook-trust', '--model', 'gpt-6.2-sol', '--sandbox', 'danger-full-access', '--skip-git-repo-check', '--ephemeral', command.prompt]);
    const config = seen.files[path.join(seen.env.CODEX_HOME!, 'config.toml')]!;
    expect(config).toMatch(/^sandbox_mode = "danger-full-access"$/m);
    expect(config).toContain('writable_roots = []');
  });

  it('opencode: fresh HOME/XDG dirs, its own opencode.json with a minimal toolset and turn budget, guard plugin loaded', async () => {
    const { command, vault } = await compose('opencode');
    const fakes = tmp('fakes');
    fakeCli(fakes, 'opencode');
    const { out, record } = runComposed(command, fakes);
    expect(out.status, out.stderr).toBe(0);
    const seen = readRecord(record);
    expect(seen.argv).toEqual(['run', '--model', 'anthropic/claude-sonnet-5', command.prompt]);
    expect(seen.cwd.startsWith(os.tmpdir()) && !seen.cwd.startsWith(vault)).toBe(true);
    for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) expect(seen.env[v]!.startsWith(seen.env.HOME!)).toBe(true);
    const config = JSON.parse(seen.files[seen.env.OPENCODE_CONFIG!]!);
    expect(config.permission.bash).toEqual({ '*': 'deny', 'board card *': 'allow' });
    expect(config.permission.external_directory).toEqual({ '*': 'deny', [`${vault}/**`]: 'allow' });
    expect(config.permission.read['*/*.env']).toBe('deny');
    expect(config.permission.read['*/.env.example']).toBe('allow');
    expect(config.permission.webfetch).toBe('deny');
    expect(config.agent.build.steps).toBe(30);
    expect(config.agent.build.maxSteps).toBeUndefined();
    // Nothing is installed at run time: each config folder says @opencode-ai/plugin is already there.
    for (const dir of [seen.env.OPENCODE_CONFIG_DIR!, path.join(seen.env.XDG_CONFIG_HOME!, 'opencode')]) {
      expect(JSON.parse(seen.files[path.join(dir, 'package-lock.json')] ?? '{}').packages[''].dependencies).toHaveProperty('@opencode-ai/plugin');
    }
    expect(config.autoupdate).toBe(false);
    const plugin = seen.files[path.join(seen.env.OPENCODE_CONFIG_DIR!, 'plugins', 'board-credential-guard.js')]!;
    expect(plugin).toContain('guard/opencode-plugin.mjs');
    expect(plugin).toMatch(/^export \{ BoardCredentialGuard \} from "file:/);
  });

  it('passes the CLI exit code back, and says so when the CLI is missing', async () => {
    const { command } = await compose('claude-code');
    const fakes = tmp('fakes');
    fakeCli(fakes, 'claude');
    expect(runComposed(command, fakes, { FAKE_EXIT: '7' }).out.status).toBe(7);
    const missing = runComposed(command, tmp('empty'));
    expect(missing.out.status).toBe(127);
    expect(missing.out.stderr).toContain('`claude` was not found');
  });

  it('composes the card path from in-progress/, the file the board claimed', async () => {
    const { command } = await compose('codex');
    expect(command.env.BOARD_CARD!.endsWith(path.join('in-progress', CARD_NAME))).toBe(true);
  });
});
