import { planFromVault } from '../round/plan-from-vault.js';
import { leftOutNote, unmatchedByLeftOut } from '../status/facts.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { planJson, planText } from './render-plan.js';

/** `board dry-run`: the round's plan, computed exactly as `tick` would, with nothing written. */
export async function dryRunCommand(options: GlobalOptions, env: CommandEnv): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  const planned = await planFromVault({ board, layout, now });
  // An unmatched card whose function belongs to a left-out profile says so, as in `board status`.
  const leftOut = await unmatchedByLeftOut(layout, planned);
  const plan = leftOut.size === 0 ? planned : { ...planned, waiting: planned.waiting.map((w) => (leftOut.has(w.card) ? { ...w, reason: `${w.reason}; ${leftOutNote(leftOut.get(w.card)!, planned.profileProblems)}` } : w)) };
  if (options.json) env.stdout(`${JSON.stringify(planJson(plan), null, 2)}\n`);
  else env.stdout(planText(plan, `dry-run at ${plan.now} on ${layout.root} (nothing is written)`));
  return 0;
}
