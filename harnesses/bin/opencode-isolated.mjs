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
//   `maxSteps` (the turn budget).
// - cwd is <run>/work, so no AGENTS.md/opencode.json of the vault is picked up as project config;
//   the vault is reachable through the `external_directory` allow rule for $BOARD_VAULT.
// The arguments from the harness file are passed through untouched. The CLI is `$OPENCODE_BIN` or
// `opencode` on PATH.
//
// Sources: opencode.ai/docs/config (OPENCODE_CONFIG, OPENCODE_CONFIG_DIR, precedence, autoupdate,
// share, instructions, mcp), /docs/permissions (permission keys, allow/ask/deny, last matching rule
// wins, external_directory, `read` denies .env by default), /docs/plugins (local plugins in a config
// dir's plugins/, `tool.execute.before`, `shell.env`), /docs/cli (`opencode run`, --model
// provider/model), agents doc (maxSteps, added in opencode PR #4062; newer releases may call it
// `steps`). Not verified here against a running `opencode`.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checking, guardFile, makeRunDir, report, runCli } from './lib/isolate.mjs';

const PLUGIN = guardFile('opencode-plugin.mjs');
const MAX_STEPS = Number(process.env.BOARD_MAX_STEPS ?? 30);

const CREDENTIAL_READS = ['*.env', '*.env.*', '*/.ssh/*', '*/.aws/*', '*/.gnupg/*', '*/.netrc', '*/.git-credentials', '*/credentials', '*.pem', '*.key', '/proc/*'];

function config(vault) {
  const read = { '*': 'allow' };
  for (const pattern of CREDENTIAL_READS) read[pattern] = 'deny';
  read['*.env.example'] = 'allow';
  const external = { '*': 'deny' };
  if (vault) external[`${vault}/**`] = 'allow';
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    instructions: [],
    mcp: {},
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
      doom_loop: 'deny',
      external_directory: external,
    },
    agent: { build: { maxSteps: MAX_STEPS } },
  };
}

/** The re-export must be in the run's plugins/ folder and the plugin must refuse printenv, allow a vault read. */
async function guardWired(pluginFile) {
  try {
    if (!fs.readFileSync(pluginFile, 'utf8').includes(pathToFileURL(PLUGIN).href)) return { wired: false, detail: `${pluginFile} does not load ${PLUGIN}` };
    const { BoardCredentialGuard } = await import(pathToFileURL(PLUGIN).href);
    const hooks = await BoardCredentialGuard({});
    const refused = await hooks['tool.execute.before']({ tool: 'bash' }, { args: { command: 'printenv' } }).then(() => false, () => true);
    const allowed = await hooks['tool.execute.before']({ tool: 'read' }, { args: { filePath: '/vault/notes/example.md' } }).then(() => true, () => false);
    if (!refused || !allowed) return { wired: false, detail: 'the plugin does not refuse printenv or does not allow a vault read' };
    return { wired: true, detail: 'plugin guard/opencode-plugin.mjs in the run\'s OPENCODE_CONFIG_DIR/plugins (refuses printenv, allows vault reads); read/bash permissions deny credentials' };
  } catch (error) {
    return { wired: false, detail: `cannot load the plugin: ${error.message}` };
  }
}

const run = makeRunDir('opencode');
const xdg = { XDG_CONFIG_HOME: 'config', XDG_DATA_HOME: 'share', XDG_CACHE_HOME: 'cache', XDG_STATE_HOME: 'state' };
const env = { ...process.env, HOME: run.home, OPENCODE_CONFIG: path.join(run.config, 'opencode.json'), OPENCODE_CONFIG_DIR: run.config };
for (const [name, sub] of Object.entries(xdg)) {
  env[name] = path.join(run.home, sub);
  fs.mkdirSync(env[name], { recursive: true });
}
fs.writeFileSync(env.OPENCODE_CONFIG, `${JSON.stringify(config(process.env.BOARD_VAULT), null, 2)}\n`, { mode: 0o600 });
fs.mkdirSync(path.join(run.config, 'plugins'));
const pluginFile = path.join(run.config, 'plugins', 'board-credential-guard.js');
fs.writeFileSync(pluginFile, `export { BoardCredentialGuard } from ${JSON.stringify(pathToFileURL(PLUGIN).href)};\n`);

if (checking) report({ cli: 'opencode', overrideVar: 'OPENCODE_BIN', env, guard: await guardWired(pluginFile), run });
else runCli({ cli: 'opencode', overrideVar: 'OPENCODE_BIN', args: process.argv.slice(2), env, cwd: run.work, run });
