import { loadBoard, type LoadedBoard } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { chooseLogFormat, createLogger, type Logger } from '../log.js';
import { VaultLayout } from '../vault/layout.js';

/** The options every command takes (CONTRACT "Commands"). */
export interface GlobalOptions {
  readonly config?: string;
  readonly vault?: string;
  readonly now?: string;
  readonly json?: boolean;
  /** Nothing on stdout but `--json` documents; only warnings and errors on stderr. */
  readonly quiet?: boolean;
  /** `json`, `pretty`, or `auto` (the default: pretty when stderr is a terminal). */
  readonly logFormat?: string;
}

/** What a command runs against; everything a test might want to replace is here. */
export interface CommandEnv {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: (text: string) => void;
  readonly logger: Logger;
  readonly clock: () => Date;
}

export async function processEnv(options: GlobalOptions = {}): Promise<CommandEnv> {
  const quiet = options.quiet === true;
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: quiet && !options.json ? () => undefined : (text) => void process.stdout.write(text),
    logger: await createLogger({
      ...(quiet ? { level: 'warn' } : {}),
      format: chooseLogFormat(options.logFormat ?? process.env.BOARD_LOG_FORMAT, process.stderr.isTTY === true),
    }),
    clock: () => new Date(),
  };
}

export function resolveNow(option: string | undefined, clock: () => Date): Date {
  if (option === undefined) return clock();
  const date = new Date(option);
  if (!/^\d{4}-\d{2}-\d{2}/.test(option) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--now: "${option}" is not an ISO 8601 time (like 2026-12-02T09:00:00Z)`);
  }
  return date;
}

export interface Prepared {
  readonly board: LoadedBoard;
  readonly layout: VaultLayout;
  readonly now: Date;
}

export async function prepare(options: GlobalOptions, env: CommandEnv): Promise<Prepared> {
  const now = resolveNow(options.now, env.clock);
  const board = await loadBoard({ config: options.config, vault: options.vault, cwd: env.cwd, env: env.env });
  for (const problem of board.harnessProblems) env.logger.warn({ file: problem.file, line: problem.line, field: problem.field, reason: problem.reason }, 'harness left out');
  return { board, layout: new VaultLayout(board.config.vault), now };
}
