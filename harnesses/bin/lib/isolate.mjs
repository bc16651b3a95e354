// Shared by the harness wrappers in harnesses/bin: a fresh, empty run folder per worker (HOME and
// the CLI's config dir live there, so no memory, no global rules, no preloaded skills, no stored
// login), then the real CLI started with an argument list (never a shell) and its exit code passed
// back. The run folder is removed when the CLI exits (kept when BOARD_KEEP_RUN_DIR=1, for debugging).
//
// With BOARD_HARNESS_CHECK=1 a wrapper does not start anything: it prepares the run folder exactly
// as for a real run, checks that its credential guard is wired, prints one JSON line
// `{ cli, path, version, guard: { wired, detail } }` and exits 0. `board harness check` reads it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CREDENTIAL_DIR_GLOBS, CREDENTIAL_FILE_GLOBS } from '../../guard/credential-rules.mjs';

export const HARNESSES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function guardFile(name) {
  return path.join(HARNESSES_DIR, 'guard', name);
}

export const checking = process.env.BOARD_HARNESS_CHECK === '1';

/** A fresh, private run folder with empty `home`, `config` and `work` subfolders. */
export function makeRunDir(cli) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `board-${cli}-`));
  fs.chmodSync(dir, 0o700);
  // tmp: the CLI's own TMPDIR, so its temp files (task outputs, sockets) go with the run folder.
  const run = { dir, home: path.join(dir, 'home'), config: path.join(dir, 'config'), work: path.join(dir, 'work'), tmp: path.join(dir, 'tmp') };
  for (const sub of [run.home, run.config, run.work, run.tmp]) fs.mkdirSync(sub, { mode: 0o700 });
  return run;
}

export function removeRunDir(run) {
  if (process.env.BOARD_KEEP_RUN_DIR === '1') return;
  try {
    fs.rmSync(run.dir, { recursive: true, force: true });
  } catch {
    // A leftover temp folder is not worth failing a finished run for.
  }
}

/**
 * The run's own `bin/`, put first on the CLI's PATH:
 * - `board`: the board CLI the dispatcher handed the worker (BOARD_BIN), so the `board card` verbs
 *   are reachable from the CLI's shell whatever the harness's PATH says;
 * - `grep`: the system grep with every credential file and folder excluded (--exclude/--exclude-dir
 *   also skip files named on the command line), so a folder search cannot return a key;
 * and a ripgrep config (RIPGREP_CONFIG_PATH) with the same excludes for `rg` and the CLIs that
 * run ripgrep for their search tools. The globs come from guard/credential-rules.mjs.
 * Returns the environment additions.
 */
export function searchAndVerbShims(run, env) {
  const bin = path.join(run.dir, 'bin');
  fs.mkdirSync(bin, { recursive: true, mode: 0o700 });
  const sh = (text) => `#!/bin/sh\n${text}\n`;
  const boardBin = env.BOARD_BIN;
  if (boardBin && fs.existsSync(boardBin)) {
    const exec = /\.[cm]?js$/.test(boardBin) ? `exec ${shellQuote(process.execPath)} ${shellQuote(boardBin)} "$@"` : `exec ${shellQuote(boardBin)} "$@"`;
    fs.writeFileSync(path.join(bin, 'board'), sh(exec), { mode: 0o755 });
  }
  const realGrep = findCli('grep', '', { PATH: env.PATH ?? '' });
  if (realGrep) {
    const excludes = [...CREDENTIAL_FILE_GLOBS.map((g) => `--exclude=${g}`), ...CREDENTIAL_DIR_GLOBS.map((g) => `--exclude-dir=${g}`)];
    fs.writeFileSync(path.join(bin, 'grep'), sh(`exec ${shellQuote(realGrep)} ${excludes.map(shellQuote).join(' ')} "$@"`), { mode: 0o755 });
  }
  const rgConfig = path.join(run.dir, 'ripgreprc');
  fs.writeFileSync(rgConfig, [...CREDENTIAL_FILE_GLOBS.map((g) => `--glob=!${g}`), ...CREDENTIAL_DIR_GLOBS.map((g) => `--glob=!${g}/`)].join('\n') + '\n');
  return { PATH: `${bin}${path.delimiter}${env.PATH ?? ''}`, RIPGREP_CONFIG_PATH: rgConfig };
}

/**
 * The board's logs folder (the verbs journal there): $BOARD_LOGS, else the `logs:` key of
 * $BOARD_CONFIG (default `logs`, relative to the config file's folder), as the verbs find it.
 */
export function boardLogsDir(env) {
  if (env.BOARD_LOGS) return path.resolve(env.BOARD_LOGS);
  if (!env.BOARD_CONFIG) return null;
  let logs = 'logs';
  try {
    const m = /^logs:[ \t]*(["']?)(.+?)\1[ \t]*(#.*)?$/m.exec(fs.readFileSync(env.BOARD_CONFIG, 'utf8'));
    if (m) logs = m[2];
  } catch {
    return null;
  }
  return path.resolve(path.dirname(env.BOARD_CONFIG), logs);
}

/** Single-quote a path for the one place a shell is involved: a hook command line in a CLI's config. */
export function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** The CLI to start: `$<NAME>_BIN` when set, else the first executable `name` on the worker's PATH. */
export function findCli(name, overrideVar, env = process.env) {
  const override = overrideVar ? env[overrideVar] : undefined;
  if (overrideVar && override) return isExecutable(override) ? path.resolve(override) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** First line of `<file> --version`, or null. Bounded, so a hung CLI cannot hang a check. */
export function versionOf(file, env) {
  if (!file) return null;
  const out = spawnSync(file, ['--version'], { env, encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const text = `${out.stdout ?? ''}\n${out.stderr ?? ''}`.split('\n').map((l) => l.trim()).find((l) => l !== '');
  return out.status === 0 && text ? text : null;
}

/** Said by every shipped wrapper's check: the guard is probed directly, the CLI is not started. */
export const HOOK_DIRECT = 'the guard was run directly, not fired by the CLI itself (`npm run test:clients` proves the CLI fires it)';

/** x.y.z out of a `--version` line ("2.1.332 (Claude Code)", "codex-cli 0.171.0"). */
export function semver(text) {
  return /\d+\.\d+\.\d+/.exec(text ?? '')?.[0] ?? null;
}

/**
 * Are the `board card` verbs reachable from the shell the CLI gives the model? Runs
 * `board card --help` with the CLI's environment through bash (or sh), as the CLIs run commands.
 */
export function verbsReachable(env) {
  const shell = findCli('bash', '', env) ?? findCli('sh', '', env) ?? '/bin/sh';
  const out = spawnSync(shell, ['-c', 'command -v board && board card --help'], { env, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const where = (out.stdout ?? '').split('\n')[0]?.trim();
  if (out.status === 0) return { reachable: true, detail: `\`board card\` answers from ${path.basename(shell)} -c (${where})` };
  const why = out.status === 127 || !where ? `\`board\` is not on the CLI's PATH (${env.PATH ?? ''}) and BOARD_BIN is ${env.BOARD_BIN ? `${env.BOARD_BIN}, which does not run` : 'unset'}` : (out.stderr ?? '').trim().split('\n')[0];
  return { reachable: false, detail: why };
}

/**
 * Check mode: one JSON line for `board harness check`, then clean up:
 * `{ cli, path, version, tested, guard: { wired, detail }, verbs: { reachable, detail }, notChecked, warnings }`.
 * `tested`: the CLI versions this wrapper was tested with (test/clients).
 */
export function report({ cli, overrideVar, env, guard, run, tested = [], notChecked = [], warnings = [] }) {
  const file = findCli(cli, overrideVar, env);
  const result = { cli, path: file, version: versionOf(file, env), tested, guard, verbs: verbsReachable(env), notChecked, warnings };
  if (run) removeRunDir(run);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

/**
 * Start the CLI with exactly `args`, inheriting stdio, forwarding termination signals, and exit
 * with its code (128 + n when it died of signal n) after removing the run folder.
 */
export function runCli({ cli, overrideVar, args, env, cwd, run }) {
  const file = findCli(cli, overrideVar, env);
  if (!file) {
    process.stderr.write(`board harness: \`${cli}\` was not found on the worker's PATH (${env.PATH ?? ''}); install it, add its folder to the harness's PATH, or set ${overrideVar}.\n`);
    removeRunDir(run);
    process.exit(127);
  }
  // PWD too: some CLIs (OpenCode) take their project folder from it rather than from the cwd.
  const child = spawn(file, args, { env: { ...env, PWD: cwd }, cwd, stdio: 'inherit', shell: false });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
  child.once('error', (error) => {
    process.stderr.write(`board harness: could not start ${file}: ${error.message}\n`);
    removeRunDir(run);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    removeRunDir(run);
    process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0));
  });
}
