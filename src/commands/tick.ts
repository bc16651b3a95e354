import { formatProblem, RoundError } from '../errors.js';
import { executePlan, planFromVault } from '../round/run-round.js';
import { supervisorSpawner, type Spawner } from '../round/spawner.js';
import { acquireRoundLock } from '../vault/lock.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { planJson, planText, transitionsText } from './render-plan.js';

/** `board tick`: one heartbeat under the round lock. */
export async function tickCommand(options: GlobalOptions, env: CommandEnv, spawner: Spawner = supervisorSpawner()): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  let compromised: Error | undefined;
  const lock = await acquireRoundLock(layout.kanban, (error) => {
    compromised = error;
    env.logger.error({ err: error }, 'round lock compromised');
  }).catch((error: Error) => {
    throw new RoundError(`cannot take the round lock in ${layout.kanban}: ${error.message}`);
  });
  if (!lock.acquired) {
    const who = lock.holder ? `pid ${lock.holder.pid} on ${lock.holder.host} since ${lock.holder.since}` : 'another round';
    env.logger.info({ holder: lock.holder }, 'round lock held: skipping this tick');
    if (options.json) env.stdout(`${JSON.stringify({ skipped: true, reason: 'lock held', holder: lock.holder ?? null })}\n`);
    else env.stdout(`tick skipped: a round is already running on this vault (${who})\n`);
    return 0;
  }
  if (lock.tookOverFrom) env.logger.warn({ previous: lock.tookOverFrom }, 'took over the round lock of a dead process');
  try {
    const plan = await planFromVault({ board, layout, now });
    for (const p of plan.invalid) env.logger.error({ card: p.file, field: p.field, reason: p.reason }, 'unreadable card: not touched');
    for (const p of [...plan.profileProblems, ...plan.templateProblems]) env.logger.error({ file: p.file, field: p.field, reason: p.reason }, formatProblem(p));
    const transitions = await executePlan({ board, layout, now, spawner, logger: env.logger }, plan);
    if (compromised) throw new RoundError(`the round lock was lost during the round: ${compromised.message}`);
    if (options.json) env.stdout(`${JSON.stringify({ ...planJson(plan), transitions }, null, 2)}\n`);
    else env.stdout(planText(plan, `tick at ${plan.now} on ${layout.root}`) + transitionsText(transitions));
    return 0;
  } finally {
    await lock.release().catch((error: Error) => env.logger.error({ err: error }, 'could not release the round lock'));
  }
}
