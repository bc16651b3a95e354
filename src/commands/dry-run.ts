import { planFromVault } from '../round/plan-from-vault.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { planJson, planText } from './render-plan.js';

/** `board dry-run`: the round's plan, computed exactly as `tick` would, with nothing written. */
export async function dryRunCommand(options: GlobalOptions, env: CommandEnv): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  const plan = await planFromVault({ board, layout, now });
  if (options.json) env.stdout(`${JSON.stringify(planJson(plan), null, 2)}\n`);
  else env.stdout(planText(plan, `dry-run at ${plan.now} on ${layout.root} (nothing is written)`));
  return 0;
}
