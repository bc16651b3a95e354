import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_INIT_SCRIPT } from '../entry-points.js';
import type { Harness } from '../schema/harness.js';
import { resolveDeclared } from './declared.js';
import { hostFacts } from './host.js';
import { sandboxMode } from './mode.js';
import { policySummary, sandboxPolicy, type SandboxSummary } from './policy.js';
import { applySeccompPath } from './probe.js';
import { sandboxStartProblem, type SandboxPlace } from './start-problem.js';

/** What `harness check` says of a harness's sandbox: what its workers read, write and reach, and whether it can start. */
export type SandboxReport =
  | ({ readonly confined: true; readonly canStart: boolean; readonly detail: string } & SandboxSummary)
  | { readonly confined: false; readonly why: string; readonly canStart: boolean; readonly detail: string };

const WHY: Record<string, string> = {
  none: '`sandbox: none`: its workers see everything the board sees',
  slurm: 'a Slurm job runs on another node, where the board cannot build the sandbox',
};

/** The policy a run of this harness would get, with placeholder run folders (nothing is created). */
export function describeSandbox(harness: Harness, place: SandboxPlace, kanban: string, workerPath: string): SandboxReport {
  const problem = sandboxStartProblem(harness, place);
  const mode = sandboxMode(harness, place.env);
  if (!mode.confined) return { confined: false, why: WHY[mode.why] ?? mode.why, canStart: problem === undefined, detail: problem ?? 'unconfined' };
  const { declared } = resolveDeclared(mode.declared, place, (p) => fs.existsSync(p));
  const seccomp = applySeccompPath();
  const policy = sandboxPolicy({
    declared,
    vault: place.vault,
    kanban,
    harnessesDir: place.harnessesDir,
    boardDist: path.dirname(SANDBOX_INIT_SCRIPT),
    node: process.execPath,
    workerPath,
    ...(process.env.HOME ? { boardHome: process.env.HOME } : {}),
    runDir: path.join(os.tmpdir(), 'board-run-<run>'),
    socketDir: path.join(os.tmpdir(), 'board-sock-<run>'),
    applySeccomp: 'file' in seccomp ? seccomp.file : '<apply-seccomp>',
    host: hostFacts(workerPath, place),
  });
  return { confined: true, ...policySummary(policy), canStart: problem === undefined, detail: problem ?? 'bubblewrap and seccomp start here' };
}
