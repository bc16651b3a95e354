#!/usr/bin/env node
// Isolated Claude Code for one card (harnesses/claude-code.yml).
//
// Per run, in a fresh temp folder:
// - HOME=<run>/home and CLAUDE_CONFIG_DIR=<run>/config, both empty: no ~/.claude memory or
//   CLAUDE.md, no skills, agents, plugins or stored login (the key comes only from
//   environment_from_private). CLAUDE_CONFIG_DIR relocates Claude Code's whole config folder.
// - <run>/config/settings.json wires harnesses/guard/claude-pretooluse.mjs as a PreToolUse hook
//   on every tool ("matcher": "*"), plus permission deny rules as a second layer; it is also
//   passed explicitly with `--settings`, and the harness limits setting sources to `user` (this
//   file) so a settings.json inside the vault cannot unwire the hook.
// - cwd is <run>/work (so no CLAUDE.md of the vault or of its parents is loaded as memory) and the
//   vault is granted with `--add-dir $BOARD_VAULT`.
// The arguments from the harness file are passed through untouched, then
// `--settings <file> [--add-dir <vault>]` is appended. The CLI is `$CLAUDE_BIN` or `claude` on PATH.
//
// - <run>/bin first on PATH: `board` (BOARD_BIN), so `Bash(board card:*)` reaches the verbs; a
//   `grep` that skips credential files, and RIPGREP_CONFIG_PATH likewise (lib/isolate.mjs).
// Tested with Claude Code 2.1.332 against a scripted model (test/clients): with `--tools
// Read,Write,Edit,Glob,Grep,Bash --disable-slash-commands` the model is offered those six tools
// (plus `DeferredToolPlaceholder`, an inert marker newer models get) and no skills; the hook
// refuses the credential reads; `--max-turns` stops a model that never ends.
// Sources: Claude Code CLI reference (docs.anthropic.com/en/docs/claude-code/cli-reference:
// -p, --model, --max-turns, --allowedTools, --disallowedTools, --settings, --setting-sources,
// --add-dir, --strict-mcp-config, --tools, --disable-slash-commands); hooks reference (…/claude-code/hooks: settings "hooks" →
// "PreToolUse" → matcher + { type: "command", command }); settings (…/claude-code/settings:
// CLAUDE_CONFIG_DIR, permissions.deny); `claude --help` of 2.1.332.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIAL_DIR_GLOBS, CREDENTIAL_FILE_GLOBS } from '../guard/credential-rules.mjs';
import { HOOK_DIRECT, checking, guardFile, makeRunDir, report, runCli, searchAndVerbShims, shellQuote } from './lib/isolate.mjs';

const GUARD = guardFile('claude-pretooluse.mjs');
/** Claude Code versions this wrapper and harnesses/claude-code.yml were tested with (test/clients). */
export const TESTED = ['2.1.332'];

function settings() {
  return {
    hooks: {
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${shellQuote(process.execPath)} ${shellQuote(GUARD)}` }] }],
    },
    // Read deny rules also filter Claude Code's Grep and Glob: a folder search skips these files
    // (tested with 2.1.332: a Grep over a vault with notes/team.env returns no match from it).
    permissions: {
      deny: [...CREDENTIAL_FILE_GLOBS.map((g) => `Read(**/${g})`), ...CREDENTIAL_DIR_GLOBS.map((g) => `Read(**/${g}/**)`), 'Bash(printenv:*)', 'Bash(env)'],
    },
  };
}

/** The hook must exist, be the one in settings.json, refuse `printenv` and allow a vault read. */
function guardWired(settingsFile) {
  try {
    const wired = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    const command = wired.hooks.PreToolUse[0].hooks[0].command;
    if (!fs.existsSync(GUARD) || !command.includes(GUARD)) return { wired: false, detail: `settings.json does not call ${GUARD}` };
    const probe = (event) => spawnSync(process.execPath, [GUARD], { input: JSON.stringify(event), encoding: 'utf8', timeout: 15_000 }).status;
    const dump = probe({ tool_name: 'Bash', tool_input: { command: 'printenv' } });
    const key = probe({ tool_name: 'Read', tool_input: { file_path: `${process.env.HOME ?? '/home/user'}/.ssh/id_rsa` } });
    const allowed = probe({ tool_name: 'Read', tool_input: { file_path: '/vault/notes/example.md' } });
    if (dump !== 2 || key !== 2 || allowed !== 0) return { wired: false, detail: `the hook answered ${dump}/${key}/${allowed} instead of 2 (refuse printenv) / 2 (refuse ~/.ssh/id_rsa) / 0 (allow a vault read)` };
    if (!wired.permissions?.deny?.some((r) => r.includes('.env'))) return { wired: false, detail: 'settings.json lacks the Read deny rules that keep Grep out of credential files' };
    return { wired: true, detail: `PreToolUse hook ${path.relative(path.dirname(path.dirname(GUARD)), GUARD)} in the run's settings.json (refuses ~/.ssh/id_rsa and printenv, allows vault reads); Read deny rules keep Grep/Glob out of credential files` };
  } catch (error) {
    return { wired: false, detail: `cannot verify the hook: ${error.message}` };
  }
}

const run = makeRunDir('claude');
const settingsFile = path.join(run.config, 'settings.json');
fs.writeFileSync(settingsFile, `${JSON.stringify(settings(), null, 2)}\n`, { mode: 0o600 });
const env = { ...process.env, HOME: run.home, CLAUDE_CONFIG_DIR: run.config, TMPDIR: run.tmp };
Object.assign(env, searchAndVerbShims(run, env));
const vault = process.env.BOARD_VAULT;
const args = [...process.argv.slice(2), '--settings', settingsFile, ...(vault ? ['--add-dir', vault] : [])];

if (checking) report({ cli: 'claude', overrideVar: 'CLAUDE_BIN', env, guard: guardWired(settingsFile), run, tested: TESTED, notChecked: [HOOK_DIRECT] });
else runCli({ cli: 'claude', overrideVar: 'CLAUDE_BIN', args, env, cwd: run.work, run });
