import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findConfigFile } from '../config/load-config.js';
import { programProblem } from '../config/program.js';
import { composeCommand, substitute, type ComposedCommand } from '../core/compose.js';
import { pickModel } from '../core/models.js';
import { BOARD_CLI } from '../entry-points.js';
import { UsageError, formatProblem } from '../errors.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { checkSlurm, slurmClientEnv, type SlurmCheck } from '../worker/slurm-check.js';
import { describeSandbox, type SandboxReport } from '../sandbox/describe.js';

/**
 * `board harness check NAME`: try a harness before trusting it. Says whether its CLI is installed
 * (and which version), whether its credential guard is wired, and prints the exact command a card
 * would get, composed the way `board tick` composes it, with private values redacted.
 *
 * The CLI check: when the command runs a wrapper shipped in the harnesses folder (the first
 * element, or the script `node` is given), the wrapper is run with BOARD_HARNESS_CHECK=1; it
 * prepares its isolated run folder as for a card, verifies its guard and prints one JSON line
 * `{ cli, path, version, guard: { wired, detail } }`. Otherwise the program is looked up on the
 * harness's PATH and asked for `--version`; the guard then counts as wired when `credential_guard`
 * names a file that exists.
 *
 * A shipped wrapper's answer also carries the CLI versions it was tested with (`tested`), whether
 * the `board card` verbs answer from the shell the CLI gives the model (`verbs`), and what it could
 * not check. For any other harness the report says plainly which of those it could not check.
 *
 * Without a board.yml (no --config, no BOARD_CONFIG, none in the current folder) it checks the
 * harnesses shipped with this package, against the shipped models.yml and a throwaway vault.
 *
 * Exit 0 when the CLI is installed, the guard wired and (where checked) the verbs reachable,
 * 1 otherwise, 2 for an unknown harness.
 */

export interface HarnessCheckOptions extends GlobalOptions {
  readonly card?: string;
  readonly profile?: string;
  readonly capacity?: string;
  readonly modality?: string;
}

export const CHECK_VAR = 'BOARD_HARNESS_CHECK';
const PRIVATE = '<private>';

interface Probe {
  readonly cli?: string;
  readonly path?: string | null;
  readonly version?: string | null;
  readonly tested?: readonly string[];
  readonly guard?: { readonly wired?: boolean; readonly detail?: string };
  readonly verbs?: { readonly reachable?: boolean; readonly detail?: string };
  readonly notChecked?: readonly string[];
  readonly warnings?: readonly string[];
}

/** The package's own folder (dist/..): its shipped harnesses/ and models.yml. */
const PACKAGE_ROOT = path.resolve(path.dirname(BOARD_CLI), '..');
/** The CLI the workers' verbs run (dispatch gives BOARD_CLI; from the sources, the built one). */
const BOARD_BIN = fs.existsSync(BOARD_CLI) ? BOARD_CLI : path.join(PACKAGE_ROOT, 'dist', 'cli.cjs');

export interface HarnessReport {
  readonly harness: string;
  readonly file: string;
  readonly installed: {
    readonly ok: boolean;
    readonly cli: string;
    readonly path: string | null;
    readonly version: string | null;
    readonly detail: string;
    /** The CLI versions the harness was tested with (shipped wrappers), or null when it does not say. */
    readonly tested: readonly string[] | null;
    /** Is the installed version one of them? null when either is unknown. */
    readonly testedVersion: boolean | null;
  };
  /** Do the `board card` verbs answer from the CLI's shell? null when the harness cannot be asked. */
  readonly verbs: { readonly reachable: boolean | null; readonly detail: string };
  /** What this check could not verify, said plainly. */
  readonly notChecked: readonly string[];
  readonly warnings: readonly string[];
  /** True when no board.yml was found and the package's shipped harnesses were checked. */
  readonly shipped: boolean;
  readonly guard: { readonly declared: string | null; readonly file: string | null; readonly exists: boolean; readonly wired: boolean; readonly detail: string };
  readonly model: { readonly ok: boolean; readonly value: string; readonly capacity: string; readonly modality: string };
  readonly privateKeys: readonly { readonly name: string; readonly set: boolean }[];
  readonly card: string;
  readonly command: { readonly file: string; readonly args: readonly string[]; readonly cwd: string; readonly env: Readonly<Record<string, string>> };
  readonly ready: boolean;
  /** Why no worker of this harness can start (its program, or a script or file its command names, is missing), as `lint` and `status` say it. */
  readonly cannotStart?: string;
  /** A harness whose workers run as Slurm jobs: its client commands and whether the cluster answers. */
  readonly slurm?: SlurmCheck;
  /** The workers' OS sandbox: what they read, write and reach, and whether it starts here. */
  readonly sandbox: SandboxReport;
}

/**
 * No board.yml anywhere: a throwaway config over the package's shipped harnesses and models.yml,
 * so `board harness check codex` works from a fresh clone. Removed after the check.
 */
function shippedConfig(name: string): { config: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-harness-check-'));
  fs.mkdirSync(path.join(dir, 'vault'));
  const config = path.join(dir, 'board.yml');
  const q = (p: string) => JSON.stringify(p);
  fs.writeFileSync(config, `vault: vault\nharnesses: ${q(path.join(PACKAGE_ROOT, 'harnesses'))}\nmodels: ${q(path.join(PACKAGE_ROOT, 'models.yml'))}\ndefault_harness: ${q(name)}\n`);
  return { config, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function harnessCheckCommand(name: string, options: HarnessCheckOptions, env: CommandEnv): Promise<number> {
  const noConfig = !options.config && !env.env.BOARD_CONFIG && !fs.existsSync(findConfigFile({ cwd: env.cwd, env: env.env }));
  if (!noConfig) return check(name, options, env, false);
  const shipped = shippedConfig(name);
  try {
    return await check(name, { ...options, config: shipped.config }, env, true);
  } finally {
    shipped.cleanup();
  }
}

async function check(name: string, options: HarnessCheckOptions, env: CommandEnv, shipped: boolean): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  const { harnessesDir } = board.config;
  const harness = board.harnesses.get(name);
  if (!harness) {
    const problems = board.harnessProblems.filter((p) => path.basename(p.file).replace(/\.ya?ml$/, '') === name);
    if (problems.length > 0) throw new UsageError(`harness "${name}" is invalid:\n${problems.map(formatProblem).join('\n')}`);
    const known = [...board.harnesses.keys()].sort().join(', ') || 'none';
    throw new UsageError(`no harness named "${name}" in ${harnessesDir} (known: ${known})`);
  }

  const capacity = options.capacity ?? 'standard';
  const modality = options.modality ?? 'text';
  const picked = pickModel(board.models, name, capacity, modality);
  const model = picked.ok ? picked.model : `<${picked.reason}>`;
  const cardName = path.basename(options.card ?? 'example.md');
  const card = path.join(layout.inProgress, cardName);
  const profile = path.join(layout.agents, options.profile ?? 'example', 'PROFILE.md');

  // Missing private keys are reported, not fatal: the command is still shown.
  const privateKeys = harness.environment_from_private.map((key) => ({ name: key, set: board.privateEnv.has(key) }));
  const privateEnv = new Map(board.privateEnv);
  for (const key of privateKeys) if (!key.set) privateEnv.set(key.name, '');
  const composed = composeCommand({
    harness,
    model,
    profile,
    card,
    vault: layout.root,
    privateEnv,
    // As dispatch-cards.ts gives them: BOARD_BIN is how the wrappers put `board` on the CLI's PATH.
    boardEnv: { BOARD_CARD: card, BOARD_CLAIM: now.toISOString(), BOARD_VAULT: layout.root, BOARD_CONFIG: board.config.configFile, BOARD_BIN },
    fallbackPath: env.env.PATH ?? '/usr/bin:/bin',
    resolveDir: (dir) => path.resolve(layout.root, dir),
    harnessesDir,
  });
  if (!composed.ok) throw new UsageError(`harness "${name}": ${composed.reason}`);
  const command = composed.command;

  // What lint, dry-run, status and the rounds judge: a missing program or script is said as such.
  const cannotStart = programProblem(harness, { harnessesDir, vault: layout.root, boardPath: env.env.PATH ?? '/usr/bin:/bin' });
  const installed: Installed = cannotStart !== undefined
    ? { ok: false, cli: command.file, path: null, version: null, detail: `cannot start: ${cannotStart}` }
    : checkInstalled(command, harnessesDir, env.env);
  const guard = checkGuard(harness.credential_guard, harnessesDir, installed.probe);
  const slurm = harness.runner?.kind === 'slurm' ? await checkSlurm(slurmClientEnv(env.env, command.env)) : undefined;
  const c = board.config;
  const sandbox = describeSandbox(
    harness,
    { vault: layout.root, harnessesDir, configFile: c.configFile, privateEnvFile: c.privateEnvFile, logsDir: c.logsDir, env: env.env },
    layout.kanban,
    command.env.PATH ?? '',
  );
  const secrets = [...board.privateEnv.values()].filter((v) => v.length >= 4);
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join(PRIVATE), text);
  const probe = installed.probe;
  const tested = probe?.tested && probe.tested.length > 0 ? [...probe.tested] : null;
  const version = semver(installed.version);
  const testedVersion = tested && version ? tested.includes(version) : null;
  const verbs: HarnessReport['verbs'] = probe?.verbs
    ? { reachable: probe.verbs.reachable === true, detail: probe.verbs.detail ?? '' }
    : { reachable: null, detail: probe ? 'not checked: the wrapper\'s self-test does not report it' : 'not checked: this harness has no self-test (BOARD_HARNESS_CHECK=1, docs/harnesses.md)' };
  const notChecked = [
    ...(probe ? [] : ['the guard\'s wiring through the CLI (only that the declared file exists)', 'whether `board card` is reachable from the CLI\'s shell', 'the CLI version against the versions the harness was tested with']),
    ...(probe?.notChecked ?? []),
    'the model endpoint: no model is called (`npm run test:clients` drives the shipped harnesses end to end against a fake model)',
  ];
  const warnings = [
    ...(installed.ok && tested && testedVersion === false ? [`${installed.cli} ${version} is not a version this harness was tested with (${tested.join(', ')}): flags and config keys may have changed`] : []),
    ...(installed.ok && tested && version === null ? [`${installed.cli} did not report a version; tested with ${tested.join(', ')}`] : []),
    ...(probe?.warnings ?? []),
  ];
  const report: HarnessReport = {
    harness: name,
    file: harnessFile(harnessesDir, name, board.config.adaptersFile),
    installed: { ok: installed.ok, cli: installed.cli, path: installed.path, version: installed.version, detail: installed.detail, tested, testedVersion },
    verbs,
    notChecked,
    warnings,
    shipped,
    guard,
    model: { ok: picked.ok, value: model, capacity, modality },
    privateKeys,
    card,
    command: {
      file: redact(command.file),
      args: command.args.map(redact),
      cwd: command.cwd,
      env: Object.fromEntries(Object.entries(command.env).map(([k, v]) => [k, command.privateNames.includes(k) ? PRIVATE : redact(v)])),
    },
    ready: installed.ok && guard.wired && verbs.reachable !== false && (slurm?.ok ?? true) && sandbox.canStart,
    ...(cannotStart !== undefined ? { cannotStart } : {}),
    ...(slurm ? { slurm } : {}),
    sandbox,
  };
  env.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, options.card === undefined));
  return report.ready ? 0 : 1;
}

function semver(text: string | null): string | null {
  return text === null ? null : (/\d+\.\d+\.\d+/.exec(text)?.[0] ?? null);
}

function harnessFile(dir: string, name: string, adapters: string | undefined): string {
  for (const ext of ['yml', 'yaml']) {
    const file = path.join(dir, `${name}.${ext}`);
    if (fs.existsSync(file)) return file;
  }
  return adapters ?? path.join(dir, `${name}.yml`);
}

interface Installed {
  readonly ok: boolean;
  readonly cli: string;
  readonly path: string | null;
  readonly version: string | null;
  readonly detail: string;
  readonly probe?: Probe;
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** A program as spawn would find it: a path with a slash relative to cwd, else the first match on PATH. */
export function resolveProgram(file: string, pathVar: string, cwd: string): string | null {
  const executable = (f: string) => {
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return fs.statSync(f).isFile();
    } catch {
      return false;
    }
  };
  if (file.includes('/')) {
    const abs = path.resolve(cwd, file);
    return executable(abs) ? abs : null;
  }
  for (const dir of pathVar.split(path.delimiter)) if (dir !== '' && executable(path.join(dir, file))) return path.join(dir, file);
  return null;
}

function firstLine(text: string | undefined): string | null {
  return (text ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? null;
}

function checkInstalled(command: ComposedCommand, harnessesDir: string, outer: NodeJS.ProcessEnv): Installed {
  const pathVar = command.env.PATH ?? outer.PATH ?? '';
  const cwd = fs.existsSync(command.cwd) ? command.cwd : harnessesDir;
  const program = resolveProgram(command.file, pathVar, cwd);
  const scriptArg = [command.file, command.args[0]].find((a): a is string => a !== undefined && path.isAbsolute(a) && inside(harnessesDir, a));
  if (!program) {
    return { ok: false, cli: command.file, path: null, version: null, detail: `${command.file} not found on the harness PATH (${pathVar})` };
  }
  if (scriptArg) {
    if (!fs.existsSync(scriptArg)) return { ok: false, cli: scriptArg, path: null, version: null, detail: `the wrapper ${scriptArg} does not exist` };
    const args = scriptArg === command.file ? [] : [scriptArg];
    const out = spawnSync(program, args, { env: { ...command.env, [CHECK_VAR]: '1' }, cwd, encoding: 'utf8', timeout: 60_000 });
    const line = (out.stdout ?? '').trim().split('\n').reverse().find((l) => l.startsWith('{'));
    let probe: Probe | undefined;
    try {
      probe = line ? (JSON.parse(line) as Probe) : undefined;
    } catch {
      probe = undefined;
    }
    if (!probe) {
      const why = out.error ? out.error.message : firstLine(out.stderr) ?? `exit ${out.status}`;
      return { ok: false, cli: path.basename(scriptArg), path: null, version: null, detail: `the wrapper did not answer the check (${why})` };
    }
    const cli = probe.cli ?? path.basename(scriptArg);
    const found = typeof probe.path === 'string' && probe.path !== '';
    return {
      ok: found,
      cli,
      path: probe.path ?? null,
      version: probe.version ?? null,
      detail: found ? `${cli} ${probe.version ?? '(version unknown)'} at ${probe.path}` : `${cli} not found${probe.version ? `: ${probe.version}` : ` on the harness PATH (${pathVar})`}`,
      probe,
    };
  }
  const out = spawnSync(program, ['--version'], { env: command.env, cwd, encoding: 'utf8', timeout: 15_000 });
  const version = out.status === 0 ? firstLine(out.stdout) ?? firstLine(out.stderr) : null;
  return { ok: true, cli: command.file, path: program, version, detail: `${command.file} ${version ?? '(no --version)'} at ${program}` };
}

function checkGuard(declared: string | undefined, harnessesDir: string, probe: Probe | undefined): HarnessReport['guard'] {
  if (!declared) return { declared: null, file: null, exists: false, wired: false, detail: 'no credential_guard declared (the lock rule requires one)' };
  const file = path.resolve(harnessesDir, substitute(declared, { harnesses: harnessesDir }));
  const exists = fs.existsSync(file);
  if (!exists) return { declared, file, exists, wired: false, detail: `credential_guard ${declared} does not exist (${file})` };
  if (probe?.guard) {
    const wired = probe.guard.wired === true;
    return { declared, file, exists, wired, detail: probe.guard.detail ?? (wired ? 'wired' : 'not wired') };
  }
  return { declared, file, exists, wired: true, detail: `${declared} declared and present (wiring is up to the harness's command: not verifiable from here)` };
}

/** Quote an argument for a POSIX shell, only when it needs it: for reading and copy-paste. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function renderReport(r: HarnessReport, placeholderCard: boolean): string {
  const lines: string[] = [];
  lines.push(`harness ${r.harness} (${r.file})`);
  if (r.shipped) lines.push('  (no board.yml here: checking the harnesses shipped with atomic-board, with its models.yml)');
  lines.push(`  cli:      ${r.installed.ok ? 'installed: ' : r.cannotStart !== undefined ? 'CANNOT START: ' : 'NOT INSTALLED: '}${r.cannotStart ?? r.installed.detail}`);
  if (r.installed.tested) lines.push(`  tested:   ${r.installed.tested.join(', ')}${r.installed.testedVersion === true ? ' (this version)' : r.installed.testedVersion === false ? ' (NOT this version)' : ''}`);
  lines.push(`  guard:    ${r.guard.wired ? 'wired: ' : 'NOT WIRED: '}${r.guard.detail}`);
  lines.push(`  verbs:    ${r.verbs.reachable === true ? 'reachable: ' : r.verbs.reachable === false ? 'NOT REACHABLE: ' : ''}${r.verbs.detail}`);
  if (r.slurm) lines.push(`  slurm:    ${r.slurm.ok ? 'ready: ' : 'NOT READY: '}${r.slurm.detail}`);
  const sb = r.sandbox;
  if (!sb.confined) lines.push(`  sandbox:  ${sb.canStart ? 'NONE: ' : 'CANNOT START: '}${sb.canStart ? sb.why : sb.detail}`);
  else {
    lines.push(`  sandbox:  ${sb.canStart ? 'confined: ' : 'CANNOT START: '}${sb.detail}`);
    lines.push(`    reads   ${sb.reads.join(' ')}`);
    lines.push(`    writes  ${sb.writes.join(' ')}`);
    if (sb.masked.length > 0) lines.push(`    hidden  ${sb.masked.join(' ')}`);
    lines.push(`    hosts   ${sb.hosts.length > 0 ? `its model endpoint (through the board), ${sb.hosts.join(' ')}` : 'its model endpoint only (through the board)'}`);
  }
  lines.push(`  model:    ${r.model.capacity}/${r.model.modality} → ${r.model.value}`);
  if (r.privateKeys.length > 0) lines.push(`  private:  ${r.privateKeys.map((k) => `${k.name} (${k.set ? 'set' : 'MISSING from the private env file'})`).join(', ')}`);
  lines.push(`  card:     ${r.card}${placeholderCard ? ' (placeholder; --card NAME to use another)' : ''}`);
  lines.push('  command a card would get:');
  lines.push(`    cwd   ${r.command.cwd}`);
  const env = Object.entries(r.command.env);
  env.forEach(([k, v], i) => lines.push(`    ${i === 0 ? 'env  ' : '     '} ${k}=${v === PRIVATE ? v : shellWord(v)}`));
  lines.push(`    argv  ${[r.command.file, ...r.command.args].map(shellWord).join(' ')}`);
  for (const w of r.warnings) lines.push(`  warning:  ${w}`);
  for (const n of r.notChecked) lines.push(`  not checked: ${n}`);
  const missing = r.privateKeys.filter((k) => !k.set).map((k) => k.name);
  const verdict = r.ready
    ? `ready: installed and guarded${missing.length ? `, but the private env file lacks ${missing.join(', ')}: cards would not be dispatched` : ''}${r.model.ok ? '' : '; no model in models.yml for this profile level'}`
    : `not ready: ${[!r.installed.ok && (r.cannotStart !== undefined ? `cannot start (${r.cannotStart})` : 'CLI not installed'), !r.guard.wired && 'guard not wired', r.verbs.reachable === false && '`board card` not reachable from the CLI\'s shell', r.slurm && !r.slurm.ok && 'Slurm not ready', !r.sandbox.canStart && 'sandbox cannot start'].filter(Boolean).join(', ')}`;
  lines.push(`  verdict:  ${verdict}`);
  return `${lines.join('\n')}\n`;
}
