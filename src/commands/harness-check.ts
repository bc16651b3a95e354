import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { composeCommand, substitute, type ComposedCommand } from '../core/compose.js';
import { pickModel } from '../core/models.js';
import { UsageError, formatProblem } from '../errors.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { checkSlurm, slurmClientEnv, type SlurmCheck } from '../worker/slurm-check.js';

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
 * Exit 0 when the CLI is installed and the guard wired, 1 otherwise, 2 for an unknown harness.
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
  readonly guard?: { readonly wired?: boolean; readonly detail?: string };
}

export interface HarnessReport {
  readonly harness: string;
  readonly file: string;
  readonly installed: { readonly ok: boolean; readonly cli: string; readonly path: string | null; readonly version: string | null; readonly detail: string };
  readonly guard: { readonly declared: string | null; readonly file: string | null; readonly exists: boolean; readonly wired: boolean; readonly detail: string };
  readonly model: { readonly ok: boolean; readonly value: string; readonly capacity: string; readonly modality: string };
  readonly privateKeys: readonly { readonly name: string; readonly set: boolean }[];
  readonly card: string;
  readonly command: { readonly file: string; readonly args: readonly string[]; readonly cwd: string; readonly env: Readonly<Record<string, string>> };
  readonly ready: boolean;
  /** A harness whose workers run as Slurm jobs: its client commands and whether the cluster answers. */
  readonly slurm?: SlurmCheck;
}

export async function harnessCheckCommand(name: string, options: HarnessCheckOptions, env: CommandEnv): Promise<number> {
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
    boardEnv: { BOARD_CARD: card, BOARD_CLAIM: now.toISOString(), BOARD_VAULT: layout.root, BOARD_CONFIG: board.config.configFile },
    fallbackPath: env.env.PATH ?? '/usr/bin:/bin',
    resolveDir: (dir) => path.resolve(layout.root, dir),
    harnessesDir,
  });
  if (!composed.ok) throw new UsageError(`harness "${name}": ${composed.reason}`);
  const command = composed.command;

  const installed = checkInstalled(command, harnessesDir, env.env);
  const guard = checkGuard(harness.credential_guard, harnessesDir, installed.probe);
  const slurm = harness.runner?.kind === 'slurm' ? await checkSlurm(slurmClientEnv(env.env, command.env)) : undefined;
  const secrets = [...board.privateEnv.values()].filter((v) => v.length >= 4);
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join(PRIVATE), text);
  const report: HarnessReport = {
    harness: name,
    file: harnessFile(harnessesDir, name, board.config.adaptersFile),
    installed: { ok: installed.ok, cli: installed.cli, path: installed.path, version: installed.version, detail: installed.detail },
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
    ready: installed.ok && guard.wired && (slurm?.ok ?? true),
    ...(slurm ? { slurm } : {}),
  };
  env.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, options.card === undefined));
  return report.ready ? 0 : 1;
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
  lines.push(`  cli:      ${r.installed.ok ? 'installed: ' : 'NOT INSTALLED: '}${r.installed.detail}`);
  lines.push(`  guard:    ${r.guard.wired ? 'wired: ' : 'NOT WIRED: '}${r.guard.detail}`);
  if (r.slurm) lines.push(`  slurm:    ${r.slurm.ok ? 'ready: ' : 'NOT READY: '}${r.slurm.detail}`);
  lines.push(`  model:    ${r.model.capacity}/${r.model.modality} → ${r.model.value}`);
  if (r.privateKeys.length > 0) lines.push(`  private:  ${r.privateKeys.map((k) => `${k.name} (${k.set ? 'set' : 'MISSING from the private env file'})`).join(', ')}`);
  lines.push(`  card:     ${r.card}${placeholderCard ? ' (placeholder; --card NAME to use another)' : ''}`);
  lines.push('  command a card would get:');
  lines.push(`    cwd   ${r.command.cwd}`);
  const env = Object.entries(r.command.env);
  env.forEach(([k, v], i) => lines.push(`    ${i === 0 ? 'env  ' : '     '} ${k}=${v === PRIVATE ? v : shellWord(v)}`));
  lines.push(`    argv  ${[r.command.file, ...r.command.args].map(shellWord).join(' ')}`);
  const missing = r.privateKeys.filter((k) => !k.set).map((k) => k.name);
  const verdict = r.ready
    ? `ready: installed and guarded${missing.length ? `, but the private env file lacks ${missing.join(', ')}: cards would not be dispatched` : ''}${r.model.ok ? '' : '; no model in models.yml for this profile level'}`
    : `not ready: ${[!r.installed.ok && 'CLI not installed', !r.guard.wired && 'guard not wired', r.slurm && !r.slurm.ok && 'Slurm not ready'].filter(Boolean).join(', ')}`;
  lines.push(`  verdict:  ${verdict}`);
  return `${lines.join('\n')}\n`;
}
