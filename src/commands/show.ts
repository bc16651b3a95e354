import { UsageError } from '../errors.js';
import { ObjectStore } from '../provenance/index.js';
import { forTerminal, terminalLines } from '../format/control.js';
import { resolveRun } from '../provenance/resolve-run.js';
import { readRunRecord } from '../vault/runs.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { costText, runState, withRunRecord } from './runs.js';

export interface ShowOptions extends GlobalOptions {
  /** Print one stored component's text (`profile`, `skill:<name>`, `card`, `harness`, `prompt`). */
  readonly component?: string;
}

/** `board show RUN`: a run's manifest (components, argv, times, exit, cost), or one stored component. */
export async function showCommand(ref: string, options: ShowOptions, env: CommandEnv): Promise<number> {
  const { board, layout } = await prepare(options, env);
  const found = await resolveRun(board.config.logsDir, ref);
  if (!found.ok) throw new UsageError(found.reason);
  const m = withRunRecord(found.manifest, found.manifest.replay_of ? undefined : await readRunRecord(layout.kanban, found.manifest.run));
  const store = new ObjectStore(board.config.logsDir);
  // A run whose stored objects were changed is not shown as if it were the record.
  await store.checkComponents(m.components);
  if (options.component !== undefined) {
    const c = m.components.find((x) => x.name === options.component);
    if (!c) throw new UsageError(`run ${m.run} has no component "${options.component}" (it has ${m.components.map((x) => x.name).join(', ')})`);
    if (!c.hash) throw new UsageError(`run ${m.run}'s ${c.name} was not stored: ${c.missing ?? 'missing'}`);
    env.stdout(await store.getText(c.hash));
    return 0;
  }
  if (options.json) {
    env.stdout(`${JSON.stringify(m, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `run      ${m.run}${m.replay_of ? `  (replay of ${m.replay_of})` : ''}`,
    `card     ${m.card}${m.flow ? `  (flow ${m.flow})` : ''}`,
    `profile  ${m.profile}`,
    `harness  ${m.harness}    model ${m.model}`,
    `claimed  ${m.claim}`,
    `start    ${m.start ?? '-'}`,
    `end      ${m.end ?? '-'}    ${runState(m)}${costText(m) ? `    cost ${costText(m)}` : ''}${m.cost?.error ? ` (${m.cost.error})` : ''}`,
    ...(m.job ? [`job      Slurm ${m.job.id}${m.job.state ? ` (${m.job.state})` : ''}`] : []),
    ...(m.reason !== undefined ? [`reason   ${forTerminal(m.reason)}`] : []),
    `log      ${m.log}`,
    `cwd      ${m.cwd}`,
    `argv     ${JSON.stringify(m.argv)}`,
    ...(m.cause ? [`cause    ${m.cause}`] : []),
    ...(m.tail !== undefined ? ['', 'end of its log', ...terminalLines(m.tail).split('\n').map((l) => `  ${l}`)] : []),
    ...Object.entries(m.substitutions ?? {}).map(([k, s]) => `changed  ${k}: ${s.from} → ${s.to}`),
    '',
    'components',
    ...m.components.map((c) => `  ${c.name.padEnd(24)} ${c.hash ? `${c.hash.slice(0, 12)}  ${String(c.bytes ?? '').padStart(7)} B` : `missing: ${c.missing ?? '?'}`}  ${c.source ?? ''}`),
    '',
    `(print one with: board show ${m.run} --component <name>)`,
  ];
  env.stdout(`${lines.join('\n')}\n`);
  return 0;
}
