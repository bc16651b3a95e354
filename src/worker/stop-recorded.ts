import type { RunRecord } from '../vault/runs.js';
import { signalWorkerGroup } from '../vault/runs.js';
import { cancelRecordedJob } from './slurm-runner.js';

/**
 * Stop a run's worker from where the board runs (a reclaim, a cancel), without waiting for its
 * supervisor's next look: a local worker's process group is signalled when its pid can be judged
 * here (same host and PID namespace); a Slurm job is cancelled, since its supervisor may have died
 * with its host. The supervisor still owns the SIGKILL that follows a SIGTERM.
 */
export async function stopRecordedWorker(record: RunRecord | undefined, signal: NodeJS.Signals): Promise<'signalled' | 'job cancelled' | undefined> {
  if (signalWorkerGroup(record, signal)) return 'signalled';
  if (record?.jobId !== undefined && record.end === undefined && (await cancelRecordedJob(record.jobId))) return 'job cancelled';
  return undefined;
}
