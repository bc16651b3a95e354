import type { ComposedCommand } from '../core/compose.js';

/**
 * How a supervisor runs one worker: a local process group (`local-runner.ts`) or a Slurm batch job
 * (`slurm-runner.ts`). The supervisor owns the policy (watch the claim, the time budget, what the
 * run record says); a runner only starts, follows and stops one worker.
 */

/** How the worker ended, as the supervisor records it. */
export interface WorkerExit {
  /** The worker's exit code; null when it died of a signal, never started, or the job's code is unknown. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Set when the worker could not be started at all (spawn ENOENT/EACCES, sbatch refused). */
  readonly startError?: { readonly code: string; readonly message: string };
  /** The scheduler's final word for a job (Slurm: COMPLETED, FAILED, CANCELLED, TIMEOUT …). */
  readonly jobState?: string;
}

/** What the run record shows about a started worker. */
export interface WorkerFacts {
  /** Local runner: the worker's pid, which is also its process group id. */
  readonly workerPid?: number;
  /** Slurm runner: the job id `sbatch --parsable` printed. */
  readonly jobId?: string;
}

export interface StartedWorker {
  readonly facts: WorkerFacts;
  /** Settles once, when the worker is gone (exited, killed, job ended or cancelled). Never rejects. */
  readonly exited: Promise<WorkerExit>;
  /**
   * Settles once the worker runs (a local process: at once; a Slurm job: once the controller shows
   * it out of the queue), or once it is gone without having run. Never rejects. The harness's time
   * budget counts from here: a job's wait in the queue is the cluster's time, not the worker's.
   */
  readonly running: Promise<void>;
  /**
   * Stop the worker: SIGTERM to its whole process group, SIGKILL `graceMs` later if anything of it
   * is left (local); `scancel` (Slurm, which applies its own KillWait). Resolves when the stop was
   * sent; `exited` settles when it is gone. Safe to call more than once and after it ended.
   */
  stop(graceMs: number): Promise<void>;
  /** The scheduler's current state of the job, for `board runs`/`status` (Slurm only). */
  state?(): Promise<string | undefined>;
}

export interface WorkerRunner {
  /**
   * Start the composed command, its output appended to `logFile`. A worker that cannot be started
   * resolves to a StartedWorker whose `exited` carries `startError`; start itself rejects only on
   * a bug.
   */
  start(command: ComposedCommand, logFile: string): Promise<StartedWorker>;
}

/** A worker that was never started (its log, its sandbox or its submission failed): gone at once, with the reason. */
export function notStarted(startError: { readonly code: string; readonly message: string }): StartedWorker {
  return { facts: {}, exited: Promise.resolve({ exitCode: null, signal: null, startError }), running: Promise.resolve(), stop: () => Promise.resolve() };
}
