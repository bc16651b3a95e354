import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stderr, written synchronously so a short-lived CLI loses no line at exit.
 * Human output goes to stdout; the two never mix.
 */
export function createLogger(level = process.env.BOARD_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { name: 'board' } }, pino.destination({ fd: 2, sync: true }));
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
