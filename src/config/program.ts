import fs from 'node:fs';
import path from 'node:path';
import { substitute } from '../core/compose.js';
import type { Harness } from '../schema/harness.js';
import { sandboxStartProblem, type SandboxPlace } from '../sandbox/start-problem.js';

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
  const program = substitute(harness.command[0] ?? '', { harnesses: place.harnessesDir });
  if (program === '') return 'its command names no program';
  if (program.includes('/')) {
    const cwd = path.resolve(place.vault, harness.working_directory === undefined ? place.vault : substitute(harness.working_directory, { vault: place.vault }));
    const file = path.resolve(cwd, program);
    const state = isExecutableFile(file);
    return state === 'ok' ? undefined : `${program} ${state === 'missing' ? 'does not exist' : `is ${state}`}${file !== program ? ` (${file})` : ''}`;
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
  return programProblem(harness, place) ?? (place.sandbox ? sandboxStartProblem(harness, place.sandbox) : undefined);
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
