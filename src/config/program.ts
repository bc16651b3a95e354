import fs from 'node:fs';
import path from 'node:path';
import { substitute } from '../core/compose.js';
import { closestField } from '../messages.js';
import type { Harness } from '../schema/harness.js';
import { sandboxStartProblem, type SandboxPlace } from '../sandbox/start-problem.js';
import { resolveEndpoint } from '../proxy/endpoint.js';

export interface ProgramPlace {
  /** Absolute path of the harnesses folder (`{harnesses}` in `command`). */
  readonly harnessesDir: string;
  /** The vault's root: the default working directory, and what a relative one resolves against. */
  readonly vault: string;
  /** The board's PATH: what a worker gets when its harness sets none. */
  readonly boardPath: string;
  /** The board's own files and environment: whether its workers' sandbox can start (absent: not judged). */
  readonly sandbox?: SandboxPlace;
}

function isExecutableFile(file: string): 'ok' | 'missing' | 'not a file' | 'not executable' {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'missing';
  }
  if (!stat.isFile()) return 'not a file';
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return 'ok';
  } catch {
    return 'not executable';
  }
}

/**
 * Why this harness's program cannot be started, or undefined when it can: the fact `dry-run`,
 * `tick` and `lint` need so that a missing CLI is a harness problem shown before any claim, not an
 * attempt spent on a card. Resolved as spawn(2) would: a program holding `/` is a path (relative to
 * the worker's folder), anything else is looked for on the worker's PATH (the harness's own
 * `environment.PATH`, else the board's). A Slurm harness's program runs on the cluster's nodes:
 * not judged here.
 */
export function programProblem(harness: Harness, place: ProgramPlace): string | undefined {
  if (harness.runner?.kind === 'slurm') return undefined;
  return executableProblem(harness, place) ?? argumentProblem(harness, place);
}

/**
 * The file an element of `command` names, when it names one the board can check before a card
 * spends an attempt: under `{harnesses}/`, under `{vault}/`, or an absolute path. An element that
 * holds `{prompt}` or `{model}` (or any other text substituted per card) names nothing checkable.
 */
function namedFile(element: string, place: ProgramPlace): string | undefined {
  const expanded = substitute(element, { harnesses: place.harnessesDir, vault: place.vault });
  if (/\{[a-z_]+\}/.test(expanded)) return undefined;
  const placed = element.startsWith('{harnesses}/') || element.startsWith('{vault}/');
  return placed || path.isAbsolute(element) ? expanded : undefined;
}

/** " (did you mean team_worker.py?)" when the folder holds a name one or two edits away. */
function didYouMean(file: string): string {
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return '';
  }
  const near = closestField(path.basename(file), names.filter((n) => !n.startsWith('.')));
  return near !== undefined && near !== path.basename(file) ? ` (did you mean ${near}?)` : '';
}

/**
 * A script or data file the command names that is missing: `python3 {harnesses}/team_wroker.py`
 * starts python, which then fails on every card. Said for the element as written, so the person
 * finds it in the harness file.
 */
function argumentProblem(harness: Harness, place: ProgramPlace): string | undefined {
  for (const element of harness.command.slice(1)) {
    const file = namedFile(element, place);
    if (file === undefined) continue;
    if (fs.existsSync(file)) continue;
    return `its command names ${element}, which does not exist${file !== element ? ` (${file})` : ''}${didYouMean(file)}`;
  }
  return undefined;
}

/** Whether the program itself (`command[0]`) can be started. */
function executableProblem(harness: Harness, place: ProgramPlace): string | undefined {
  const program = substitute(harness.command[0] ?? '', { harnesses: place.harnessesDir });
  if (program === '') return 'its command names no program';
  if (program.includes('/')) {
    const cwd = path.resolve(place.vault, harness.working_directory === undefined ? place.vault : substitute(harness.working_directory, { vault: place.vault }));
    const file = path.resolve(cwd, program);
    const state = isExecutableFile(file);
    if (state === 'ok') return undefined;
    const element = harness.command[0]!;
    if (state === 'missing') return `its command names ${element}, which does not exist${file !== element ? ` (${file})` : ''}${didYouMean(file)}`;
    return `${program} is ${state}${file !== program ? ` (${file})` : ''}`;
  }
  const searchPath = harness.environment.PATH ?? place.boardPath;
  const dirs = searchPath.split(path.delimiter).filter((d) => d !== '');
  let notExecutable: string | undefined;
  for (const dir of dirs) {
    const state = isExecutableFile(path.join(dir, program));
    if (state === 'ok') return undefined;
    if (state === 'not executable') notExecutable ??= path.join(dir, program);
  }
  if (notExecutable) return `${notExecutable} is not executable`;
  return `\`${program}\` is not on its PATH (${harness.environment.PATH !== undefined ? "the harness's environment.PATH" : "the board's PATH"}: ${searchPath || '(empty)'})`;
}

/** Why this harness cannot start: its program, else its sandbox (src/sandbox/start-problem.ts). */
export function startProblem(harness: Harness, place: ProgramPlace): string | undefined {
  return programProblem(harness, place) ?? endpointProblem(harness) ?? (place.sandbox ? sandboxStartProblem(harness, place.sandbox) : undefined);
}

/**
 * A harness that holds private keys must say where they go (DESIGN-18: the run's credential proxy
 * adds them toward that endpoint only); without one they could only be handed to the worker.
 */
export function endpointProblem(harness: Harness): string | undefined {
  if (harness.environment_from_private.length === 0) return undefined;
  const choice = resolveEndpoint(harness);
  return choice.ok ? undefined : `its private keys (${harness.environment_from_private.join(', ')}) have ${choice.reason}`;
}

/** Every harness that cannot start, with why: harness name → reason. */
export function unstartableHarnesses(harnesses: ReadonlyMap<string, Harness>, place: ProgramPlace): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, harness] of harnesses) {
    const problem = startProblem(harness, place);
    if (problem !== undefined) out.set(name, problem);
  }
  return out;
}
