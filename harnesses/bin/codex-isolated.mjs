#!/usr/bin/env node
// Isolated Codex CLI for one card (harnesses/codex.yml).
//
// Per run, in a fresh temp folder:
// - HOME=<run>/home and CODEX_HOME=<run>/config (Codex's whole state root: config, auth, logs,
//   sessions, skills), both empty apart from the files below: no stored login, no history, no
//   global AGENTS.md, no MCP servers.
// - <run>/config/config.toml:
//     approval_policy = "never"           (nobody is there to approve; `codex exec` runs this way)
//     sandbox_mode = "workspace-write"    (writes confined to the workspace = the vault, the cwd)
//     [sandbox_workspace_write] network_access = false
//     [shell_environment_policy]           the credential guard: every variable whose name holds
//       KEY, SECRET or TOKEN is removed from the shell the model runs (Codex's default excludes,
//       kept on), plus PASSWORD/CREDENTIAL/the provider keys explicitly. The board's own BOARD_*
//       variables stay, so `board card close` works.
//     project_doc_max_bytes = 0           (no AGENTS.md from the vault is read: no ambient rules)
//     [history] persistence = "none", check_for_update_on_startup = false
// - <run>/config/rules/board-credential-guard.rules: harnesses/guard/codex.rules (execpolicy
//   prefix rules forbidding env dumps; experimental in Codex, a tripwire).
// - CODEX_API_KEY is set from OPENAI_API_KEY when only the latter is given (current Codex reads
//   CODEX_API_KEY in `codex exec`; older releases read OPENAI_API_KEY), and vice versa.
// Turn budget: Codex documents no per-run turn limit; the board's `zombie_after` is the backstop.
// Reads are not confined: Codex's sandbox blocks writes and network, not reading an absolute path
// elsewhere on disk. HOME is empty, the shell has no keys, and env dumps are forbidden; for a hard
// read boundary run the board in a container or as a separate user.
//
// Sources: github.com/openai/codex docs/config.md (CODEX_HOME, approval_policy, sandbox_mode,
// sandbox_workspace_write.network_access, shell_environment_policy, project_doc_max_bytes,
// history.persistence, check_for_update_on_startup); developers.openai.com/codex/rules;
// developers.openai.com codex environment variables (CODEX_HOME must already exist,
// CODEX_API_KEY for exec). Not verified here against a running `codex`.
import fs from 'node:fs';
import path from 'node:path';
import { checking, guardFile, makeRunDir, report, runCli } from './lib/isolate.mjs';

const RULES = guardFile('codex.rules');

const CONFIG = `# Written by atomic-board's codex-isolated.mjs for one run; removed when the run ends.
approval_policy = "never"
sandbox_mode = "workspace-write"
project_doc_max_bytes = 0
check_for_update_on_startup = false

[sandbox_workspace_write]
network_access = false

[shell_environment_policy]
inherit = "all"
ignore_default_excludes = false
exclude = ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*"]

[history]
persistence = "none"
`;

function guardWired(configDir) {
  const config = fs.readFileSync(path.join(configDir, 'config.toml'), 'utf8');
  const rules = path.join(configDir, 'rules', 'board-credential-guard.rules');
  if (!/\[shell_environment_policy\][^[]*exclude = \[[^\]]*\*KEY\*/.test(config) || /ignore_default_excludes = true/.test(config)) {
    return { wired: false, detail: 'config.toml does not strip keys from the shell environment' };
  }
  if (!fs.existsSync(rules) || !fs.readFileSync(rules, 'utf8').includes('"printenv"')) return { wired: false, detail: 'the execpolicy rules are missing' };
  return { wired: true, detail: 'CODEX_HOME config.toml strips *KEY*/*SECRET*/*TOKEN* from the shell env, sandbox without network; guard/codex.rules forbids env dumps' };
}

const run = makeRunDir('codex');
fs.writeFileSync(path.join(run.config, 'config.toml'), CONFIG, { mode: 0o600 });
fs.mkdirSync(path.join(run.config, 'rules'));
fs.copyFileSync(RULES, path.join(run.config, 'rules', 'board-credential-guard.rules'));

const env = { ...process.env, HOME: run.home, CODEX_HOME: run.config };
if (env.OPENAI_API_KEY && !env.CODEX_API_KEY) env.CODEX_API_KEY = env.OPENAI_API_KEY;
if (env.CODEX_API_KEY && !env.OPENAI_API_KEY) env.OPENAI_API_KEY = env.CODEX_API_KEY;

if (checking) report({ cli: 'codex', overrideVar: 'CODEX_BIN', env, guard: guardWired(run.config), run });
else runCli({ cli: 'codex', overrideVar: 'CODEX_BIN', args: process.argv.slice(2), env, cwd: process.cwd(), run });
