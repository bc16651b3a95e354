import type { Harness } from '../schema/harness.js';
import { localRunner } from './local-runner.js';
import type { StartedWorker, WorkerRunner } from './runner.js';

/** The runner a harness asks for (CONTRACT "Workers on a cluster"); a local process group by default. */
export async function selectRunner(runner: Harness['runner']): Promise<WorkerRunner> {
  if (runner === undefined || runner.kind === 'local') return localRunner();
  return unavailable(`runner kind "${runner.kind}" is not available in this build`);
}

/** A runner that cannot start anything: the run is recorded with the reason as its start error. */
function unavailable(message: string): WorkerRunner {
  return {
    start: (): Promise<StartedWorker> =>
      Promise.resolve({ facts: {}, exited: Promise.resolve({ exitCode: null, signal: null, startError: { code: 'ERUNNER', message } }), stop: () => Promise.resolve() }),
  };
}
