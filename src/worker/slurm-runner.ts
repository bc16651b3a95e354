import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ComposedCommand } from '../core/compose.js';
import { notStarted, type StartedWorker, type WorkerExit, type WorkerRunner } from './runner.js';

/**
 * The worker as a Slurm batch job (CONTRACT "Workers on a cluster"). `sbatch --parsable` submits
 * a two-line script that execs the composed command; the worker's environment goes through the
 * job's environment: `--export=` lists the variable names only and sbatch takes their values from
 * its own environment, so a private key is never in the script text or in any argv (`ps`, the
 * job's stored script). The job is followed with `squeue`, its end and exit code read from
 * `scontrol show job` (or `sacct` where the cluster keeps accounting); a stop is `scancel`, after
 * which Slurm applies its own KillWait (SIGTERM, then SIGKILL). The client commands come from the
 * board's PATH.
 */

export interface SlurmRunnerOptions {
  /** The harness's `runner.args`, passed to sbatch before the runner's own. */
  readonly args?: readonly string[];
  /** How often the job is looked at. */
  readonly pollMs?: number;
  /** Environment for the client commands (PATH, SLURM_CONF …); the supervisor's own by default. */
  readonly clientEnv?: NodeJS.ProcessEnv;
}

/** Job states after which the job runs nothing more (squeue/scontrol's long names). */
const TERMINAL = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'REVOKED',
  'SPECIAL_EXIT',
  'TIMEOUT',
]);

/**
 * Job states in which the job has not begun running its script: waiting in the queue (held or not)
 * or for its nodes, or queued again after a requeue. A state outside these, terminal ones
 * included, means the job has run or runs.
 */
const QUEUED = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD']);

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** spawn's own error (ENOENT: the command is not on PATH). */
  readonly error?: NodeJS.ErrnoException;
}

/** Run a client command to its end: never through a shell, never rejecting. */
export function runClient(file: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn(file, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, stdout, stderr, error }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The first executable file `name` on `pathVar`, as a shell would find it; null when none. */
export function findOnPath(name: string, pathVar: string): string | null {
  for (const dir of pathVar.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** A word for POSIX sh: single-quoted, any single quote closed, escaped and reopened. */
export function shQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The batch script: the command alone, exec'd, so the job's exit code is the worker's. No values from the environment. */
export function batchScript(command: ComposedCommand): string {
  return `#!/bin/sh\nexec ${[command.file, ...command.args].map(shQuote).join(' ')}\n`;
}

/** The sbatch argv: names of the exported variables only, never their values. */
export function sbatchArgs(command: ComposedCommand, logFile: string, jobName: string, harnessArgs: readonly string[] = []): string[] {
  const names = Object.keys(command.env).filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  return [
    '--parsable',
    ...harnessArgs,
    `--job-name=${jobName}`,
    `--chdir=${command.cwd}`,
    `--output=${logFile}`,
    '--open-mode=append',
    // NIL: nothing of sbatch's own environment but these names (and Slurm's SLURM_* variables).
    `--export=${names.length > 0 ? names.join(',') : 'NIL'}`,
  ];
}

/** `ExitCode=2:0` → exit code 2; `0:9` → killed by signal 9. */
export function parseExitCode(value: string | undefined): { exitCode: number | null; signal: string | null } {
  const m = /^(\d+):(\d+)$/.exec(value ?? '');
  if (!m) return { exitCode: null, signal: null };
  const [code, sig] = [Number(m[1]), Number(m[2])];
  if (sig > 0) {
    const name = Object.entries(os.constants.signals).find(([, n]) => n === sig)?.[0] ?? `SIG${sig}`;
    return { exitCode: null, signal: name };
  }
  return { exitCode: code, signal: null };
}

/** `scontrol show job -o ID`'s one line as a map (`JobState=COMPLETED Reason=None ExitCode=0:0 …`). */
export function parseScontrol(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const m of line.matchAll(/(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=(\S*)/g)) fields.set(m[1]!, m[2]!);
  return fields;
}

/** The first word of a state (`CANCELLED by 0` → CANCELLED). */
function stateWord(state: string | undefined): string | undefined {
  const word = state?.trim().split(/\s+/)[0];
  return word ? word.replace(/\+$/, '') : undefined;
}

/** What the client commands (sbatch, squeue, scontrol, scancel, sacct) may see of an environment. */
const CLIENT_VAR = /^(?:PATH|HOME|USER|LOGNAME|LANG|LC_[A-Z]+|TZ|SLURM_\w+|SBATCH_\w+|SQUEUE_\w+|SCONTROL_\w+|SACCT_\w+|MUNGE_\w+)$/;

function clientEnvFor(command: ComposedCommand, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // The board's PATH and any Slurm settings (SLURM_CONF …), the harness's included; the worker's
  // other variables (private keys) stay out of the client commands' environments.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of [...Object.entries(base), ...Object.entries(command.env)]) if (v !== undefined && CLIENT_VAR.test(k)) env[k] = v;
  if (base.PATH !== undefined) env.PATH = base.PATH;
  return env;
}

/**
 * Cancel a recorded job from wherever the board runs (a reclaim, a cancel): its supervisor cancels
 * it too when it is alive, but a supervisor that died with its host cannot. Best effort, only where
 * `scancel` is on the board's PATH; true when scancel accepted it.
 */
export async function cancelRecordedJob(jobId: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!/^\d+(?:_\d+)?$/.test(jobId) || findOnPath('scancel', env.PATH ?? '') === null) return false;
  const client: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && CLIENT_VAR.test(k)) client[k] = v;
  const result = await runClient('scancel', [jobId], client);
  return result.code === 0;
}

export function slurmRunner(options: SlurmRunnerOptions = {}): WorkerRunner {
  const pollMs = options.pollMs ?? 2000;
  return {
    async start(command: ComposedCommand, logFile: string): Promise<StartedWorker> {
      const client = clientEnvFor(command, options.clientEnv ?? process.env);
      // sbatch's own environment: the client's, with the worker's values for the exported names
      // (its PATH included: sbatch itself is found on the board's PATH first).
      const sbatchEnv: NodeJS.ProcessEnv = { ...client, ...command.env };
      const sbatch = findOnPath('sbatch', client.PATH ?? '');
      const jobName = `board-${command.env.BOARD_RUN ?? 'worker'}`;
      const submitted: CommandResult = sbatch
        ? await runClient(sbatch, sbatchArgs(command, logFile, jobName, options.args), sbatchEnv, batchScript(command))
        : { code: null, stdout: '', stderr: '', error: Object.assign(new Error(`sbatch not found on PATH (${client.PATH ?? ''})`), { code: 'ENOENT' }) };
      const jobId = /^(\d+(?:_\d+)?)(?:;\S+)?\s*$/.exec(submitted.stdout.trim())?.[1];
      if (submitted.error || submitted.code !== 0 || !jobId) {
        const code = submitted.error?.code ?? 'ESBATCH';
        const message = submitted.error
          ? `sbatch could not be run: ${submitted.error.message} (is the Slurm client on the board's PATH?)`
          : `sbatch refused the job (exit ${submitted.code}): ${(submitted.stderr || submitted.stdout).trim() || 'no message'}`;
        return notStarted({ code, message });
      }

      let lastState: string | undefined = 'PENDING';
      let done = false;
      let settle!: (exit: WorkerExit) => void;
      const exited = new Promise<WorkerExit>((resolve) => (settle = resolve));
      let ran!: () => void;
      const running = new Promise<void>((resolve) => (ran = resolve));
      void exited.then(() => ran());

      const finalWord = async (): Promise<WorkerExit> => {
        const shown = await runClient('scontrol', ['show', 'job', '-o', jobId], client);
        if (shown.code === 0) {
          const fields = parseScontrol(shown.stdout);
          const state = stateWord(fields.get('JobState'));
          if (state && TERMINAL.has(state)) return { ...parseExitCode(fields.get('ExitCode')), jobState: state };
          if (state) return { exitCode: null, signal: null, jobState: state };
        }
        // Purged from the controller (MinJobAge): only accounting still knows, where it is kept.
        const acct = await runClient('sacct', ['-n', '-P', '-X', '-j', jobId, '-o', 'State,ExitCode'], client);
        const [state, exitCode] = acct.code === 0 ? (acct.stdout.trim().split('\n')[0] ?? '').split('|') : [];
        if (state) return { ...parseExitCode(exitCode), jobState: stateWord(state) ?? state };
        return { exitCode: null, signal: null, jobState: lastState && TERMINAL.has(lastState) ? lastState : 'UNKNOWN' };
      };

      const poll = async (): Promise<void> => {
        while (!done) {
          const queued = await runClient('squeue', ['-h', '-j', jobId, '-t', 'all', '-o', '%T'], client);
          const state = queued.code === 0 ? stateWord(queued.stdout) : undefined;
          const gone = queued.code === 0 && state === undefined;
          const invalid = queued.code !== 0 && /invalid job id/i.test(queued.stderr);
          if (state) lastState = state;
          if (state && !QUEUED.has(state)) ran();
          if ((state && TERMINAL.has(state)) || gone || invalid) {
            let exit = await finalWord();
            // squeue said the job ended but the controller still completes it: ask again shortly.
            for (let i = 0; i < 10 && exit.jobState !== undefined && !TERMINAL.has(exit.jobState) && exit.jobState !== 'UNKNOWN'; i++) {
              await new Promise((r) => setTimeout(r, Math.min(pollMs, 1000)));
              exit = await finalWord();
            }
            lastState = exit.jobState;
            done = true;
            settle(exit);
            return;
          }
          // A controller that does not answer for a while is not the job's end: keep looking.
          await new Promise((r) => setTimeout(r, pollMs));
        }
      };
      void poll();

      let cancelling: Promise<void> | undefined;
      return {
        facts: { jobId },
        exited,
        running,
        stop: () => {
          if (done) return Promise.resolve();
          cancelling ??= runClient('scancel', [jobId], client).then(() => undefined);
          return cancelling;
        },
        state: () => Promise.resolve(lastState),
      };
    },
  };
}
