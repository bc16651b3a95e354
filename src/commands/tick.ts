import { runLockedRound } from '../round/locked-round.js';
import { supervisorSpawner, type Spawner } from '../round/spawner.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { planJson, planText, transitionsText } from './render-plan.js';

/** `board tick`: one heartbeat under the round lock. */
export async function tickCommand(options: GlobalOptions, env: CommandEnv, spawner: Spawner = supervisorSpawner()): Promise<number> {
  const prepared = await prepare(options, env);
  const result = await runLockedRound(prepared, env.logger, spawner, 'tick');
  if (result.skipped) {
    const who = result.holder ? `pid ${result.holder.pid} on ${result.holder.host} since ${result.holder.since}` : 'another round';
    if (options.json) env.stdout(`${JSON.stringify({ skipped: true, reason: 'lock held', holder: result.holder ?? null, detail: result.reason ?? null })}\n`);
    else env.stdout(`tick skipped: a round is already running on this vault (${who})${result.reason ? `: ${result.reason}` : ''}\n`);
    return 0;
  }
  const { plan, transitions } = result;
  if (options.json) env.stdout(`${JSON.stringify({ ...planJson(plan), transitions }, null, 2)}\n`);
  else env.stdout(planText(plan, `tick at ${plan.now} on ${prepared.layout.root}`, true) + transitionsText(transitions));
  return 0;
}
