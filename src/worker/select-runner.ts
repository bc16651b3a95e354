import type { Harness } from '../schema/harness.js';
import { localRunner } from './local-runner.js';
import { slurmRunner } from './slurm-runner.js';
import type { WorkerRunner } from './runner.js';

/** The runner a harness asks for (CONTRACT "Workers on a cluster"); a local process group by default. */
export function selectRunner(runner: Harness['runner']): Promise<WorkerRunner> {
  if (runner === undefined || runner.kind === 'local') return Promise.resolve(localRunner());
  return Promise.resolve(slurmRunner({ args: runner.args }));
}
