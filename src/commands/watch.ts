import { warmSupervisorSpawner, type Spawner } from '../round/spawner.js';
import { startWatch } from '../watch/daemon.js';
import { UsageError } from '../errors.js';
import type { CommandEnv, GlobalOptions } from './common.js';
import { parseDurationOption } from './duration.js';

export interface WatchOptions extends GlobalOptions {
  readonly interval?: string;
  readonly debounce?: string;
  readonly poll?: boolean;
  readonly pollInterval?: string;
}

/** Exit code when a second signal cuts a round short (128 + SIGINT, the shell's convention). */
const FORCED_EXIT = 130;

/**
 * `board watch`: the always-on board. Rounds on changes and on a heartbeat, under the round lock;
 * the first SIGTERM/SIGINT finishes the round in flight, releases the lock and exits 0; a second
 * one forces the exit. Spawned workers are detached and left alone either way.
 */
export async function watchCommand(options: WatchOptions, env: CommandEnv, spawner?: Spawner): Promise<number> {
  if (options.now !== undefined) throw new UsageError('--now makes no sense for `board watch`: it runs on the real clock');
  const intervalMs = parseDurationOption('--interval', options.interval ?? '5m', 1_000);
  const debounceMs = parseDurationOption('--debounce', options.debounce ?? '500ms', 0);
  const pollIntervalMs = parseDurationOption('--poll-interval', options.pollInterval ?? '2s', 100);
  // A supervisor started one run ahead: a claim's worker does not wait for Node to start.
  spawner ??= warmSupervisorSpawner();
  let handle;
  try {
    handle = await startWatch({ options, env, spawner }, { intervalMs, debounceMs, poll: options.poll === true, pollIntervalMs });
  } catch (error) {
    spawner.close?.();
    throw error;
  }
  const started = handle;
  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) {
        env.logger.warn({ signal }, 'second signal: exiting now');
        process.exit(FORCED_EXIT);
      }
      env.logger.info({ signal }, 'stopping: finishing the round in flight');
      void started.stop().then(() => {
        spawner.close?.();
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        resolve(0);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
