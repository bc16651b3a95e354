import { listManifests, type RunManifest } from '../provenance/index.js';
import { readRunRecord, type RunRecord } from '../vault/runs.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { cardName } from './log.js';
import { forTerminal } from '../format/control.js';

export interface RunsOptions extends GlobalOptions {
  readonly card?: string;
}

/** A manifest completed from the board's run record when its supervisor could not update it. */
export function withRunRecord(m: RunManifest, record: RunRecord | undefined): RunManifest & { job?: { id: string; state?: string }; reason?: string; tail?: string } {
  if (!record) return m;
  return {
    ...m,
    // A Slurm runner's job: its id and last known state, from the run record.
    ...(record.jobId !== undefined ? { job: { id: record.jobId, ...(record.jobState !== undefined ? { state: record.jobState } : {}) } } : {}),
    ...(m.start === undefined && record.start !== undefined ? { start: record.start } : {}),
    ...(m.end === undefined && record.end !== undefined ? { end: record.end } : {}),
    ...(m.exit_code === undefined && record.exitCode !== undefined ? { exit_code: record.exitCode } : {}),
    ...(record.ended !== undefined ? { ended: record.ended } : {}),
    ...(record.stopped !== undefined ? { stopped: record.stopped } : {}),
    ...(record.startError !== undefined ? { start_error: `${record.startError.code}: ${record.startError.message}` } : {}),
    // Why it ended without closing (one line) and the end of its log: core/failure-reason.ts.
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.tail !== undefined ? { tail: record.tail } : {}),
  };
}

export function runState(m: RunManifest): string {
  if (m.start_error !== undefined) return `could not start (${m.start_error})`;
  if (m.stopped !== undefined) return `stopped: ${m.stopped}`;
  if (m.ended === 'closed') return `closed${m.exit_code !== undefined && m.exit_code !== null ? `, exit ${m.exit_code}` : ''}`;
  if (m.end !== undefined) return m.exit_code === null || m.exit_code === undefined ? `ended${m.signal ? ` (${m.signal})` : ''}` : `exit ${m.exit_code}`;
  if (m.start !== undefined) return 'running';
  return 'claimed';
}

export function costText(m: RunManifest): string {
  if (!m.cost) return '';
  const parts = [m.cost.tokens !== undefined ? `${m.cost.tokens} tok` : '', m.cost.usd !== undefined ? `$${m.cost.usd.toFixed(4)}` : ''].filter(Boolean);
  return parts.join(' ') || (m.cost.error ? '?' : '');
}

/** `board runs`: every recorded dispatch (and replay), oldest first. */
export async function runsCommand(options: RunsOptions, env: CommandEnv): Promise<number> {
  const { board, layout } = await prepare(options, env);
  const { manifests, problems } = await listManifests(board.config.logsDir);
  for (const p of problems) env.logger.warn({ file: p.file }, p.reason);
  const card = options.card !== undefined ? cardName(options.card) : undefined;
  const chosen = await Promise.all(
    manifests.filter((m) => card === undefined || m.card === card).map(async (m) => withRunRecord(m, m.replay_of ? undefined : await readRunRecord(layout.kanban, m.run))),
  );
  if (options.json) {
    env.stdout(`${JSON.stringify({ runs: chosen, problems }, null, 2)}\n`);
    return 0;
  }
  if (chosen.length === 0) {
    env.stdout(`no runs recorded${card ? ` for ${card}` : ''} in ${board.config.logsDir}/manifests\n`);
    return 0;
  }
  const rows = chosen.map((m) => [m.run, m.profile, `${m.harness}/${m.model}`, (m.start ?? m.claim).replace(/\.\d+Z$/, 'Z'), runState(m), costText(m), m.job ? `job ${m.job.id}${m.job.state ? ` ${m.job.state}` : ''}` : '', m.replay_of ? `replay of ${m.replay_of}` : '', m.reason !== undefined ? `— ${forTerminal(m.reason)} (log: ${m.log})` : '']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  env.stdout(`${rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`);
  return 0;
}
