import fs from 'node:fs/promises';
import path from 'node:path';
import { loadYaml } from '../format/frontmatter.js';
import { noopJournal, openJournal, type Journal, type OpenOptions } from './journal.js';

/** The variable that hands a worker the id of its claim event (the cause of what it does next). */
export const CAUSE_VAR = 'BOARD_CAUSE';

/**
 * The logs folder a process should journal into, without loading the whole board: `$BOARD_LOGS`
 * when set, else the `logs` key of `$BOARD_CONFIG` (default `logs`, relative to the config's
 * folder). Undefined when neither is available or the config cannot be read.
 */
export async function logsDirFromEnv(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.BOARD_LOGS) return path.resolve(env.BOARD_LOGS);
  const config = env.BOARD_CONFIG;
  if (!config) return undefined;
  try {
    const data = loadYaml(await fs.readFile(config, 'utf8'));
    const logs = typeof data.logs === 'string' && data.logs !== '' ? data.logs : 'logs';
    return path.resolve(path.dirname(path.resolve(config)), logs);
  } catch {
    return undefined;
  }
}

/**
 * The journal for a process that may not know the board's config (a `board card` verb run by a
 * worker): the one in `logsDirFromEnv(env)`, else the no-op journal.
 */
export async function openJournalFromEnv(env: NodeJS.ProcessEnv, options: OpenOptions = {}): Promise<Journal> {
  const logsDir = await logsDirFromEnv(env);
  return logsDir ? openJournal(logsDir, options) : noopJournal(options.clock);
}

/** The cause a worker's verbs should carry: its claim event's id, when the board handed one. */
export function causeFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const cause = env[CAUSE_VAR];
  return cause && cause.trim() !== '' ? cause.trim() : undefined;
}
