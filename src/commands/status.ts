import { readLastRound } from '../round/last-round.js';
import { planFromVault } from '../round/plan-from-vault.js';
import { boardStatus, statusText } from '../status/board-status.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { terminalLines } from '../format/control.js';

/** `board status`: the board at a glance. Reads only; plans exactly as `tick` would. */
export async function statusCommand(options: GlobalOptions, env: CommandEnv): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  const plan = await planFromVault({ board, layout, now });
  const status = await boardStatus(layout, plan, now, await readLastRound(board.config.logsDir));
  env.stdout(options.json ? `${JSON.stringify(status, null, 2)}\n` : terminalLines(statusText(status)));
  return 0;
}
