#!/usr/bin/env node
// Isolated OpenCode for one card (harnesses/opencode.yml).
//
// Per run, in a fresh temp folder:
// - HOME=<run>/home and XDG_CONFIG_HOME / XDG_DATA_HOME / XDG_CACHE_HOME / XDG_STATE_HOME under it,
//   all empty: no global opencode.json, AGENTS.md, agents, commands, plugins or stored auth
//   (OpenCode keeps auth under its data dir; the key comes only from environment_from_private).
// - OPENCODE_CONFIG=<run>/config/opencode.json (below) and OPENCODE_CONFIG_DIR=<run>/config,
//   whose plugins/ folder holds a one-line re-export of harnesses/guard/opencode-plugin.mjs: the
//   credential guard, a `tool.execute.before` hook that throws on credential reads and env dumps.
// - opencode.json: autoupdate off, sharing disabled, no MCP servers, no extra instructions, and a
//   minimal permission set: file tools allowed, credential paths denied for `read`, `bash` denied
//   except `board card *` (the closing ritual), web fetch/search, subagents, skills and questions
//   denied, paths outside the vault denied (`external_directory`), and the build agent capped at
//   `steps` (the turn budget; `maxSteps` is its deprecated alias; OpenCode treats it as advice, so
//   the harness `timeout` is the hard stop). A `provider` block carries
//   ANTHROPIC_BASE_URL / OPENAI_BASE_URL (with the /v1 OpenCode's providers expect).
// - nothing installed at run time: see the manifests written below.
// - <run>/bin first on PATH (`board`, a credential-skipping `grep`) and RIPGREP_CONFIG_PATH with
//   the same excludes (lib/isolate.mjs). OpenCode's own grep tool runs ripgrep without that
//   config (tested with 1.18.33): the guard plugin narrows its include filter instead.
// - cwd is <run>/work, so no AGENTS.md/opencode.json of the vault is picked up as project config;
//   the vault is reachable through the `external_directory` allow rule for $BOARD_VAULT.
// The arguments from the harness file are passed through untouched. The CLI is `$OPENCODE_BIN` or
// `opencode` on PATH.
//
// Sources: opencode.ai/docs/config (OPENCODE_CONFIG, OPENCODE_CONFIG_DIR, precedence, autoupdate,
// share, instructions, mcp), /docs/permissions (permission keys, allow/ask/deny, last matching rule
// wins, external_directory, `read` denies .env by default), /docs/plugins (local plugins in a config
// dir's plugins/, `tool.execute.before`, `shell.env`), /docs/cli (`opencode run`, --model
// provider/model), /docs/agents (`steps`). Tested with opencode 1.18.33 against a scripted model
// (test/clients).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CREDENTIAL_DIR_GLOBS, CREDENTIAL_FILE_GLOBS, HARMLESS_ENV_GLOBS } from '../guard/credential-rules.mjs';
import { HOOK_DIRECT, checking, findCli, guardFile, makeRunDir, report, runCli, searchAndVerbShims } from './lib/isolate.mjs';

const PLUGIN = guardFile('opencode-plugin.mjs');
/** OpenCode versions this wrapper and harnesses/opencode.yml were tested with (test/clients). */
export const TESTED = ['1.18.33'];
const MAX_STEPS = Number(process.env.BOARD_MAX_STEPS ?? 30);

/** OpenCode's `read` permission patterns, from the shared rule table (last matching rule wins). */
const CREDENTIAL_READS = [...CREDENTIAL_FILE_GLOBS.map((g) => `*/${g}`), ...CREDENTIAL_DIR_GLOBS.map((g) => `*/${g}/*`), '/proc/*'];

/** OpenCode's provider wants the base URL with its /v1; users write it as for Claude Code. */
function withV1(url) {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

function config(vault, env) {
  const read = { '*': 'allow' };
  for (const pattern of CREDENTIAL_READS) read[pattern] = 'deny';
  for (const pattern of HARMLESS_ENV_GLOBS) read[`*/${pattern}`] = 'allow';
  const provider = {};
  if (env.ANTHROPIC_BASE_URL) provider.anthropic = { options: { baseURL: withV1(env.ANTHROPIC_BASE_URL) } };
  if (env.OPENAI_BASE_URL) provider.openai = { options: { baseURL: withV1(env.OPENAI_BASE_URL) } };
  const external = { '*': 'deny' };
  if (vault) external[`${vault}/**`] = 'allow';
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    instructions: [],
    mcp: {},
    provider,
    permission: {
      read,
      edit: 'allow',
      glob: 'allow',
      grep: 'allow',
      list: 'allow',
      bash: { '*': 'deny', 'board card *': 'allow' },
      webfetch: 'deny',
      websearch: 'deny',
      task: 'deny',
      skill: 'deny',
      question: 'deny',
      todowrite: 'deny',
      doom_loop: 'deny',
      external_directory: external,
    },
    agent: { build: { steps: MAX_STEPS } },
  };
}

/** The re-export must be in the run's plugins/ folder and the plugin must refuse printenv, allow a vault read. */
async function guardWired(pluginFile) {
  try {
    if (!fs.readFileSync(pluginFile, 'utf8').includes(pathToFileURL(PLUGIN).href)) return { wired: false, detail: `${pluginFile} does not load ${PLUGIN}` };
    const { BoardCredentialGuard } = await import(pathToFileURL(PLUGIN).href);
    const hooks = await BoardCredentialGuard({});
    const refused =
      (await hooks['tool.execute.before']({ tool: 'bash' }, { args: { command: 'printenv' } }).then(() => false, () => true)) &&
      (await hooks['tool.execute.before']({ tool: 'read' }, { args: { filePath: '/vault/notes/team.env' } }).then(() => false, () => true));
    const allowed = await hooks['tool.execute.before']({ tool: 'read' }, { args: { filePath: '/vault/notes/example.md' } }).then(() => true, () => false);
    if (!refused || !allowed) return { wired: false, detail: 'the plugin does not refuse printenv and a .env read, or does not allow a vault read' };
    return { wired: true, detail: 'plugin guard/opencode-plugin.mjs in the run\'s OPENCODE_CONFIG_DIR/plugins (refuses a .env read and printenv, allows vault reads); read/bash permissions deny credentials' };
  } catch (error) {
    return { wired: false, detail: `cannot load the plugin: ${error.message}` };
  }
}

const run = makeRunDir('opencode');
const xdg = { XDG_CONFIG_HOME: 'config', XDG_DATA_HOME: 'share', XDG_CACHE_HOME: 'cache', XDG_STATE_HOME: 'state' };
const env = { ...process.env, HOME: run.home, OPENCODE_CONFIG: path.join(run.config, 'opencode.json'), OPENCODE_CONFIG_DIR: run.config, TMPDIR: run.tmp };
for (const [name, sub] of Object.entries(xdg)) {
  env[name] = path.join(run.home, sub);
  fs.mkdirSync(env[name], { recursive: true });
}
Object.assign(env, searchAndVerbShims(run, env));
fs.writeFileSync(env.OPENCODE_CONFIG, `${JSON.stringify(config(process.env.BOARD_VAULT, env), null, 2)}\n`, { mode: 0o600 });
fs.mkdirSync(path.join(run.config, 'plugins'));
const pluginFile = path.join(run.config, 'plugins', 'board-credential-guard.js');
fs.writeFileSync(pluginFile, `export { BoardCredentialGuard } from ${JSON.stringify(pathToFileURL(PLUGIN).href)};\n`);
// OpenCode npm-installs @opencode-ai/plugin into every config folder at startup (64 MB per run, a
// long wait offline) unless the folder's node_modules/ exists and its package-lock.json already
// lists every dependency of its package.json (read in the 1.18.33 binary: Npm.install ->
// checkNodeModules, checkDirty). The guard plugin imports nothing from that package, so each
// folder gets a manifest saying it is installed, and nothing is fetched.
const PLUGIN_PKG = '@opencode-ai/plugin';
const globalConfig = path.join(env.XDG_CONFIG_HOME, 'opencode');
for (const dir of [globalConfig, run.config]) {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ private: true, dependencies: { [PLUGIN_PKG]: '*' } })}\n`);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { [PLUGIN_PKG]: '*' } } } })}\n`);
}

if (checking) {
  const warnings = findCli('rg', '', env) ? [] : ['ripgrep (`rg`) is not on the harness PATH: OpenCode would download it on every run (and its grep tool fails offline)'];
  report({ cli: 'opencode', overrideVar: 'OPENCODE_BIN', env, guard: await guardWired(pluginFile), run, tested: TESTED, warnings, notChecked: [HOOK_DIRECT] });
}
else runCli({ cli: 'opencode', overrideVar: 'OPENCODE_BIN', args: process.argv.slice(2), env, cwd: run.work, run });
