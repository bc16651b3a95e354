import { spawn, type ChildProcess } from 'node:child_process';
import { SUPERVISOR_SCRIPT } from '../entry-points.js';
import type { ComposedCommand } from '../core/compose.js';
import type { Budget } from '../schema/config.js';
import type { Harness, HarnessCost } from '../schema/harness.js';
import type { Prices } from '../schema/models.js';
import type { JobSandbox } from '../sandbox/confine.js';

/** Everything a supervisor needs to launch one claim's worker. Private values live only in `command.env`. */
export interface RunJob {
  readonly runId: string;
  /** Absolute path of the claimed card in `in-progress/`. */
  readonly card: string;
  readonly claim: string;
  readonly kanbanDir: string;
  readonly logFile: string;
  readonly command: ComposedCommand;
  /** The harness's name (shown in the run record and the log). */
  readonly harness?: string;
  /** The harness's time budget: past it the worker is stopped and the run recorded as timed out. */
  readonly timeoutMs?: number;
  /** Where the worker runs (absent: a local process group). */
  readonly runner?: Harness['runner'];
  /** The worker's OS sandbox (local runner): confined with what, or why not (absent: as `none`). */
  readonly sandbox?: JobSandbox;
  /** Where the supervisor records the run's end, exit code and cost (manifest, journal); absent in dry previews. */
  readonly provenance?: RunProvenance;
  /** The run's credential proxy (absent: a harness with no model endpoint and no keys). */
  readonly proxy?: RunJobProxy;
}

/**
 * What the supervisor needs to run the run's credential proxy (src/proxy/). The real keys travel
 * only here, from the tick to the supervisor, through the supervisor's stdin: never in the
 * worker's environment, argv or files, and never in a process environment another process could
 * read in /proc.
 */
export interface RunJobProxy {
  /** The worker's variable that holds the proxy's URL (ANTHROPIC_BASE_URL …). */
  readonly urlEnv: string;
  readonly upstream: string;
  /** Placeholder → real key, for this run's harness's keys only. */
  readonly secrets: readonly (readonly [string, string])[];
  readonly prices?: Prices;
  readonly budget?: Budget;
  readonly dailyBudget?: Budget;
  readonly ledger: { readonly logsDir: string; readonly run: string; readonly card: string };
}

export interface RunProvenance {
  /** The dispatcher's logs folder (journal, objects, manifests). */
  readonly logsDir: string;
  /** The run manifest to complete when the worker exits. */
  readonly manifest?: string;
  /** The claim event: the cause of the run's `run:exited`. */
  readonly cause?: string;
  /** The harness's cost paths over the worker's last JSON line. */
  readonly cost?: HarnessCost;
}

/** The seam between a round and processes: tests inject a fake, production starts a supervisor. */
export interface Spawner {
  start(job: RunJob): Promise<{ pid?: number }>;
  /** Let go of anything started ahead (a spare supervisor). */
  close?(): void;
}

/**
 * A supervisor's own environment: where to find programs (sbatch, bwrap), the board's HOME (hidden
 * from a sandboxed worker) and temp folder (run folders go there). The worker's is in the job.
 */
function supervisorEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', [SUPERVISOR_SPARE_VAR]: '1' };
  for (const key of ['HOME', 'TMPDIR', 'TZ'] as const) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

/** Set for every supervisor: it reads its job from stdin. */
export const SUPERVISOR_SPARE_VAR = 'BOARD_SUPERVISOR_SPARE';

/**
 * Starts a detached supervisor per run (`dist/supervisor.js`), which re-checks the claim, records
 * the run exclusively and only then launches the worker. The tick does not wait for either.
 */
export function supervisorSpawner(supervisorScript = SUPERVISOR_SCRIPT): Spawner {
  return {
    start(job) {
      return new Promise((resolve, reject) => {
        // The job (the run's keys for its proxy among it) goes through a pipe, as to a warm spare:
        // a process's environment stays readable in /proc for its whole life.
        const child = spawn(process.execPath, [supervisorScript], {
          detached: true,
          stdio: ['pipe', 'ignore', 'ignore'],
          env: supervisorEnv(),
        });
        child.once('error', reject);
        child.stdin!.on('error', () => undefined);
        child.once('spawn', () => {
          child.stdin!.end(JSON.stringify(job), (error?: Error | null) => {
            child.unref();
            if (error) reject(error);
            else resolve(child.pid !== undefined ? { pid: child.pid } : {});
          });
        });
      });
    },
  };
}

/** What a supervisor writes on its stdout once its worker is started (or could not be): one line, then nothing. */
export const WORKER_STARTED_LINE = 'started\n';

/** Longest a spare's successor waits for the run in hand to say its worker started. */
export const NEXT_SPARE_AFTER_MS = 1_000;

/**
 * `board watch`'s spawner: the same detached supervisor per run, started one run ahead. A spare
 * supervisor (Node's start-up and its modules loaded: ~0.2 s) waits for its job on stdin; a
 * claim hands the job (the worker's environment included, through the pipe rather than the
 * supervisor's environment) to the spare. The spare then does exactly what a cold supervisor
 * does: re-check the claim, record the run exclusively, launch. A spare that gets no job (the
 * watcher stopped, crashed or was killed: its pipe closes) exits at once. A spare that died on
 * its own is replaced by a cold start for that job.
 *
 * The next spare is started once the run in hand has its worker started (its supervisor's
 * `WORKER_STARTED_LINE`), or its supervisor ended, or `NEXT_SPARE_AFTER_MS` passed: a spare's
 * start-up is a core's worth of work for ~0.1 s, and started at the hand-over it competed with
 * that very supervisor for the CPU on a 2-core host (drop → worker p50 78–88 → 70–74 ms, three
 * interleaved runs, bench/README.md).
 */
export function warmSupervisorSpawner(supervisorScript = SUPERVISOR_SCRIPT): Spawner {
  const cold = supervisorSpawner(supervisorScript);
  let closed = false;
  const launch = (): ChildProcess | undefined => {
    try {
      const child = spawn(process.execPath, [supervisorScript], {
        detached: true,
        stdio: ['pipe', 'pipe', 'ignore'],
        env: supervisorEnv(),
      });
      child.once('error', () => undefined);
      child.stdin?.on('error', () => undefined);
      child.stdout?.on('error', () => undefined);
      child.unref();
      // Neither pipe keeps the watcher alive.
      (child.stdin as { unref?: () => void } | null)?.unref?.();
      (child.stdout as { unref?: () => void } | null)?.unref?.();
      return child;
    } catch {
      return undefined;
    }
  };
  const launchNext = () => {
    if (!closed && spare === undefined) spare = launch();
  };
  /** Starts the next spare once `child` says its worker started, ends, or takes too long; then lets its stdout go. */
  const launchNextAfter = (child: ChildProcess) => {
    let done = false;
    const next = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout?.destroy();
      launchNext();
    };
    const timer = setTimeout(next, NEXT_SPARE_AFTER_MS);
    timer.unref();
    child.stdout?.once('data', next).once('close', next);
  };
  const alive = (child: ChildProcess | undefined): boolean =>
    child !== undefined && child.pid !== undefined && child.exitCode === null && child.signalCode === null && child.stdin?.writable === true;
  let spare = launch();
  return {
    async start(job) {
      if (closed) return cold.start(job);
      const child = spare;
      spare = undefined;
      if (!child || !alive(child)) {
        child?.kill();
        // The job first, the next spare after: starting a process is a fork of this one, ~8 ms
        // of this thread on a 10k-card board, which the run in hand need not wait for.
        setImmediate(launchNext);
        return cold.start(job);
      }
      launchNextAfter(child);
      const written = await new Promise<boolean>((resolve) => {
        child.stdin!.end(JSON.stringify(job), (error?: Error | null) => resolve(!error));
      });
      if (!written) return cold.start(job);
      return { pid: child.pid! };
    },
    close() {
      closed = true;
      spare?.stdin?.end();
      spare = undefined;
    },
  };
}
