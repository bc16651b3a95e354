import pino, { type Logger } from 'pino';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

export interface LogOptions {
  readonly level?: string;
  /** `pretty`: readable lines for a person (pino-pretty); `json`: one JSON document a line. */
  readonly format?: LogFormat;
}

/**
 * Logs on stderr, written synchronously so a short-lived CLI loses no line at exit. JSON lines by
 * default (for journald, files, pipes); readable lines when asked for, which the CLI does when
 * stderr is a terminal. Human output goes to stdout; the two never mix.
 */
export async function createLogger(options: LogOptions = {}): Promise<Logger> {
  const level = options.level ?? process.env.BOARD_LOG_LEVEL ?? 'info';
  if (options.format === 'pretty') {
    // Loaded only for a terminal: pipes and timers never pay for it.
    const { default: pretty } = await import('pino-pretty');
    return pino({ level, base: { name: 'board' } }, pretty({ destination: 2, sync: true, singleLine: true, ignore: 'pid,hostname,name', translateTime: 'SYS:HH:MM:ss' }));
  }
  return pino({ level, base: { name: 'board' } }, pino.destination({ fd: 2, sync: true }));
}

/** The format for `--log-format` (`auto` or unset: readable on a terminal, JSON otherwise). */
export function chooseLogFormat(option: string | undefined, stderrIsTty: boolean): LogFormat {
  if (option === 'json' || option === 'pretty') return option;
  return stderrIsTty ? 'pretty' : 'json';
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
