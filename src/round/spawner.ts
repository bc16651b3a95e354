import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ComposedCommand } from '../core/compose.js';
import type { HarnessCost } from '../schema/harness.js';

/** Everything a supervisor needs to launch one claim's worker. Private values live only in `command.env`. */
export interface RunJob {
  readonly runId: string;
  /** Absolute path of the claimed card in `in-progress/`. */
  readonly card: string;
  readonly claim: string;
  readonly kanbanDir: string;
  readonly logFile: string;
  readonly command: ComposedCommand;
  /** Where the supervisor records the run's end, exit code and cost (manifest, journal); absent in dry previews. */
  readonly provenance?: RunProvenance;
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
}

export const SUPERVISOR_JOB_VAR = 'BOARD_SUPERVISOR_JOB';

/**
 * Starts a detached supervisor per run (`dist/supervisor.js`), which re-checks the claim, records
 * the run exclusively and only then launches the worker. The tick does not wait for either.
 */
export function supervisorSpawner(supervisorScript = fileURLToPath(new URL('../supervisor.js', import.meta.url))): Spawner {
  return {
    start(job) {
      return new Promise((resolve, reject) => {
        const { env, ...commandWithoutEnv } = job.command;
        const child = spawn(process.execPath, [supervisorScript], {
          detached: true,
          stdio: 'ignore',
          env: { ...env, [SUPERVISOR_JOB_VAR]: JSON.stringify({ ...job, command: { ...commandWithoutEnv, env: {} } }) },
        });
        child.once('error', reject);
        child.once('spawn', () => {
          child.unref();
          resolve(child.pid !== undefined ? { pid: child.pid } : {});
        });
      });
    },
  };
}
