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
// - Tools and shell (tested with codex-cli 0.171.0 against a scripted model, test/clients):
//     allow_login_shell = false           the model's commands run with `bash -c`, not `bash -lc`: a
//                                          login profile would reset PATH and lose `board`
//     web_search = "disabled", [agents] enabled = false (no subagent tools), [features]
//       goals/apps/plugins/remote_plugin/image_generation/sleep_tool/skill_search = false: the
//       model is offered the shell (exec_command, or for code-mode models the `exec` tool that
//       calls it), write_stdin, request_user_input, view_image and nothing that reaches the web,
//       spawns agents or schedules work
//     [sandbox_workspace_write] writable_roots = [the board's logs folder] only when the verbs run
//       in this worker (no board sandbox, no verb server: they journal there), exclude_slash_tmp
//       and exclude_tmpdir_env_var: writable = the vault (cwd) (+ logs/ in that case)
//   Inside the board's sandbox (BOARD_SANDBOX set) Codex's own sandbox is off
//   (danger-full-access): it is bubblewrap too, and cannot make its namespaces under the board's
//   seccomp filter; the board's sandbox is the wall (see `boardSandbox` below).
//     [[hooks.PreToolUse]] the shared guard (guard/claude-pretooluse.mjs speaks Codex's hook
//       protocol too: tool_name/tool_input on stdin, exit 2 blocks); `exec
//       --dangerously-bypass-hook-trust` is added so this hook, which the wrapper itself wrote
//       into the run's CODEX_HOME, runs without a trust prompt nobody could answer
//     openai_base_url from OPENAI_BASE_URL (Codex ignores the variable itself)
// - <run>/bin first on PATH: `board` (BOARD_BIN) and a `grep` that skips credential files;
//   RIPGREP_CONFIG_PATH with the same excludes for `rg` (lib/isolate.mjs).
// Turn budget: Codex has no turn limit for exec; the harness's `timeout` stops the run.
// Reads are not confined: Codex's sandbox blocks writes and network, not reading an absolute path
// elsewhere on disk. HOME is empty, the shell has no keys, and env dumps are forbidden; for a hard
// read boundary run the board in a container or as a separate user.
//
// Sources: github.com/openai/codex docs/config.md (CODEX_HOME, approval_policy, sandbox_mode,
// sandbox_workspace_write.network_access, shell_environment_policy, project_doc_max_bytes,
// history.persistence, check_for_update_on_startup); developers.openai.com/codex/rules;
// developers.openai.com codex environment variables (CODEX_HOME must already exist,
// CODEX_API_KEY for exec); developers.openai.com/codex/hooks; `codex exec --help` and
// `codex features list` of 0.171.0.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_DIRECT, boardLogsDir, checking, guardFile, makeRunDir, report, runCli, searchAndVerbShims, shellQuote } from './lib/isolate.mjs';

const RULES = guardFile('codex.rules');
/** Codex versions this wrapper and harnesses/codex.yml were tested with (test/clients). */
export const TESTED = ['0.171.0'];
const HOOK = guardFile('claude-pretooluse.mjs');
const OFF_FEATURES = ['goals', 'apps', 'plugins', 'remote_plugin', 'image_generation', 'sleep_tool', 'skill_search'];

const toml = (value) => JSON.stringify(value); // a JSON string is a valid TOML basic string

/**
 * Inside the board's own sandbox (BOARD_SANDBOX set by the supervisor: bubblewrap + seccomp around
 * this whole process tree) Codex's workspace-write sandbox cannot start: it is bubblewrap too, and
 * the board's seccomp filter refuses the user namespace it needs (`unshare` is EPERM in there). The
 * board's sandbox already confines writes (vault outside KANBAN/, the run folder) and reads, and
 * takes the network away; Codex's own layer then runs as danger-full-access. Without the board's
 * sandbox (`sandbox: none`) Codex keeps its own workspace-write sandbox.
 */
const boardSandbox = Boolean(process.env.BOARD_SANDBOX);

function config(env) {
  // The verbs journal in logs/ only when they run in this worker (no board sandbox, no verb server).
  const logs = boardSandbox || env.BOARD_VERBS_URL ? null : boardLogsDir(env);
  const lines = [
    "# Written by atomic-board's codex-isolated.mjs for one run; removed when the run ends.",
    'approval_policy = "never"',
    `sandbox_mode = "${boardSandbox ? 'danger-full-access' : 'workspace-write'}"`,
    'allow_login_shell = false',
    'web_search = "disabled"',
    'project_doc_max_bytes = 0',
    'check_for_update_on_startup = false',
  ];
  if (env.OPENAI_BASE_URL) lines.push(`openai_base_url = ${toml(env.OPENAI_BASE_URL)}`);
  lines.push('', '[features]', ...OFF_FEATURES.map((f) => `${f} = false`));
  lines.push('', '[agents]', 'enabled = false');
  lines.push('', '[sandbox_workspace_write]', 'network_access = false', `writable_roots = [${logs ? toml(logs) : ''}]`, 'exclude_tmpdir_env_var = true', 'exclude_slash_tmp = true');
  lines.push('', '[shell_environment_policy]', 'inherit = "all"', 'ignore_default_excludes = false', 'exclude = ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*"]');
  lines.push('', '[history]', 'persistence = "none"');
  lines.push('', '[[hooks.PreToolUse]]', 'matcher = "*"', '[[hooks.PreToolUse.hooks]]', 'type = "command"', `command = ${toml(`${shellQuote(process.execPath)} ${shellQuote(HOOK)}`)}`, 'timeout = 30');
  return `${lines.join('\n')}\n`;
}

function guardWired(configDir) {
  const text = fs.readFileSync(path.join(configDir, 'config.toml'), 'utf8');
  const rules = path.join(configDir, 'rules', 'board-credential-guard.rules');
  if (!/\[shell_environment_policy\][^[]*exclude = \[[^\]]*\*KEY\*/.test(text) || /ignore_default_excludes = true/.test(text)) {
    return { wired: false, detail: 'config.toml does not strip keys from the shell environment' };
  }
  if (!text.includes(HOOK) || !fs.existsSync(HOOK)) return { wired: false, detail: `config.toml does not wire the PreToolUse hook ${HOOK}` };
  if (!fs.existsSync(rules) || !fs.readFileSync(rules, 'utf8').includes('"printenv"')) return { wired: false, detail: 'the execpolicy rules are missing' };
  // Codex sends the hook what Claude Code does: { tool_name: "Bash", tool_input: { command } }.
  const probe = (command) => spawnSync(process.execPath, [HOOK], { input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }), encoding: 'utf8', timeout: 15_000 }).status;
  const key = probe('cat ~/.ssh/id_rsa');
  const dump = probe("sh -c 'pri''ntenv'");
  const allowed = probe('cat notes/example.md');
  if (key !== 2 || dump !== 2 || allowed !== 0) return { wired: false, detail: `the hook answered ${key}/${dump}/${allowed} instead of 2 (refuse cat ~/.ssh/id_rsa) / 2 (refuse an env dump) / 0 (allow a vault read)` };
  const writes = boardSandbox ? "Codex's sandbox off inside the board's (bubblewrap + seccomp)" : `sandbox writes: vault${boardLogsDir(process.env) && !process.env.BOARD_VERBS_URL ? ' + logs/' : ''}`;
  return { wired: true, detail: `PreToolUse hook guard/claude-pretooluse.mjs in the run's CODEX_HOME config.toml (refuses cat ~/.ssh/id_rsa and env dumps, allows vault reads); keys stripped from the shell env; guard/codex.rules; ${writes}` };
}

const run = makeRunDir('codex');
const env = { ...process.env, HOME: run.home, CODEX_HOME: run.config, TMPDIR: run.tmp };
Object.assign(env, searchAndVerbShims(run, env));
if (env.OPENAI_API_KEY && !env.CODEX_API_KEY) env.CODEX_API_KEY = env.OPENAI_API_KEY;
if (env.CODEX_API_KEY && !env.OPENAI_API_KEY) env.OPENAI_API_KEY = env.CODEX_API_KEY;
fs.writeFileSync(path.join(run.config, 'config.toml'), config(env), { mode: 0o600 });
fs.mkdirSync(path.join(run.config, 'rules'));
fs.copyFileSync(RULES, path.join(run.config, 'rules', 'board-credential-guard.rules'));

// The hook is ours (written just above into the run's own CODEX_HOME): run it without a trust prompt.
const args = process.argv.slice(2);
if (boardSandbox) {
  const at = args.indexOf('--sandbox');
  if (at >= 0 && args[at + 1] === 'workspace-write') args[at + 1] = 'danger-full-access';
}
const sub = args.indexOf('exec');
if (sub >= 0 && !args.includes('--dangerously-bypass-hook-trust')) args.splice(sub + 1, 0, '--dangerously-bypass-hook-trust');

if (checking) report({ cli: 'codex', overrideVar: 'CODEX_BIN', env, guard: guardWired(run.config), run, tested: TESTED, notChecked: [HOOK_DIRECT, 'the sandbox (bubblewrap) is not started: `npm run test:clients` exercises it'] });
else runCli({ cli: 'codex', overrideVar: 'CODEX_BIN', args, env, cwd: process.cwd(), run });
