import fs from 'node:fs/promises';
import { readLastRound } from '../round/last-round.js';
import { privateEnvModeSentence } from '../messages.js';
import type { FileProblem } from '../core/types.js';
import { planFromVault, programPlace } from '../round/plan-from-vault.js';
import { boardStatus, statusText } from '../status/board-status.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { terminalLines } from '../format/control.js';
import { kanbanColumns, kanbanText } from '../status/kanban.js';
import { UsageError } from '../errors.js';
import { unstartableHarnesses } from '../config/program.js';
import { unconfinedHarnesses } from '../sandbox/mode.js';
import { flowCardsOf, flowProblems, type FlowProblem } from '../core/flows.js';

/** `board status`: the board at a glance. Reads only; plans exactly as `tick` would. */
export interface StatusOptions extends GlobalOptions {
  /** The kanban view: columns with their cards, fitting the terminal. */
  readonly board?: boolean;
  /** Width for `--board` (default: the terminal's, else 100). */
  readonly width?: string;
}

export async function statusCommand(options: StatusOptions, env: CommandEnv): Promise<number> {
  const { board, layout, now } = await prepare(options, env);
  let flows: FlowProblem[] = [];
  const plan = await planFromVault({ board, layout, now }, undefined, (snapshot) => void (flows = flowProblems(flowCardsOf(snapshot))));
  const status = await boardStatus(layout, plan, now, await readLastRound(board.config.logsDir), {
    harnessProblems: board.harnessProblems,
    flows,
    warnings: await privateEnvWarnings(board.config.privateEnvFile),
    unstartable: unstartableHarnesses(board.harnesses, programPlace(board, env.env)),
    unconfined: unconfinedHarnesses(board.harnesses),
  });
  if (options.board) {
    const columns = await kanbanColumns(layout, status);
    const width = options.width !== undefined ? Number(options.width) : (process.stdout.columns ?? 100);
    if (!Number.isInteger(width) || width < 20) throw new UsageError(`--width: "${options.width}" is not a whole number of columns (20 or more)`);
    env.stdout(options.json ? `${JSON.stringify(columns, null, 2)}\n` : terminalLines(kanbanText(columns, width)));
    return 0;
  }
  env.stdout(options.json ? `${JSON.stringify(status, null, 2)}\n` : terminalLines(statusText(status)));
  return 0;
}

/** A private env file readable by group or others: a warning here, an error in `lint`. */
async function privateEnvWarnings(file: string | undefined): Promise<FileProblem[]> {
  if (!file) return [];
  const mode = await fs.stat(file).then((s) => s.mode, () => undefined);
  return mode !== undefined && (mode & 0o077) !== 0 ? [{ file, field: 'private_env', reason: privateEnvModeSentence(mode) }] : [];
}
