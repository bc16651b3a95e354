import { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import { runLockedRound, type LockedRoundResult } from '../round/locked-round.js';
import type { Spawner } from '../round/spawner.js';
import { CensusCache } from '../vault/census-cache.js';
import { prepare, type CommandEnv, type GlobalOptions } from '../commands/common.js';
import { RoundScheduler, type RoundOutcome, type RoundReason, type Timers } from './scheduler.js';
import { VaultWatcher } from './vault-watcher.js';
import type { WatchEvent } from './relevance.js';

export interface WatchSettings {
  readonly intervalMs: number;
  readonly debounceMs: number;
  readonly poll: boolean;
  readonly pollIntervalMs?: number;
  /** First retry delay after a failed or skipped round (doubles up to the interval). */
  readonly retryMs?: number;
}

/** Typed events, `noun:verb`, so tests await "the thing happened" instead of sleeping. */
export interface WatchEvents {
  'round:start': [{ reason: RoundReason }];
  'round:end': [{ reason: RoundReason; outcome: RoundOutcome; result?: LockedRoundResult; error?: Error }];
  'watcher:ready': [{ state: 'started' | 'restarted' }];
  'watcher:down': [{ reason: string }];
  'vault:change': [{ event: WatchEvent; path: string }];
}

export interface WatchHandle {
  readonly events: EventEmitter<WatchEvents>;
  /** Finish the round in flight, release the lock, close the watcher. */
  stop(): Promise<void>;
}

export interface WatchDeps {
  readonly options: GlobalOptions;
  readonly env: CommandEnv;
  readonly spawner: Spawner;
  readonly timers?: Timers;
}

/**
 * The always-on board: a round on start, on every relevant change (debounced) and on a heartbeat,
 * each one under the same round lock as `board tick`. Config is read fresh every round; folders
 * are listed and every profile and card stat'ed every round, and a file whose stat is unchanged
 * since it was parsed is answered by the census cache (see census-cache.ts). The cache forgets
 * what a round did not list, and is emptied before every heartbeat, start and retry round, which
 * read every byte like a tick. Besides the cache, the daemon keeps only scalars between rounds.
 */
export async function startWatch(deps: WatchDeps, settings: WatchSettings): Promise<WatchHandle> {
  const { env, spawner } = deps;
  const logger = env.logger;
  // Fail fast on a bad config (exit 2), before anything is watched.
  const first = await prepare({ ...deps.options, now: undefined }, env);
  let layout = first.layout;
  const events = new EventEmitter<WatchEvents>();
  let scheduler: RoundScheduler | undefined;
  const watcher = new VaultWatcher({
    poll: settings.poll,
    pollIntervalMs: settings.pollIntervalMs ?? 1_000,
    stableMs: Math.min(Math.max(50, Math.floor(settings.debounceMs / 2)), 2_000),
    logger,
    onChange: (event, path) => {
      logger.debug({ event, path }, 'vault changed');
      events.emit('vault:change', { event, path });
      scheduler?.signal();
    },
  });
  let vaultDown = false;
  const cache = new CensusCache();

  const run = async (reason: RoundReason): Promise<RoundOutcome> => {
    events.emit('round:start', { reason });
    let prepared;
    try {
      prepared = await prepare({ ...deps.options, now: undefined }, env);
      layout = prepared.layout;
    } catch (error) {
      logger.error({ err: error }, 'cannot load the config: retrying');
      events.emit('round:end', { reason, outcome: 'failed', error: error as Error });
      return 'failed';
    }
    if (!(await isDirectory(layout.kanban))) {
      if (!vaultDown) logger.warn({ kanban: layout.kanban }, 'vault unavailable: watching paused, retrying with backoff');
      vaultDown = true;
      await watcher.close();
      events.emit('watcher:down', { reason: `no board at ${layout.kanban}` });
      events.emit('round:end', { reason, outcome: 'failed', error: new Error(`no board at ${layout.kanban}`) });
      return 'failed';
    }
    if (vaultDown) logger.info({ kanban: layout.kanban }, 'vault available again');
    vaultDown = false;
    try {
      const state = await watcher.ensure(layout);
      if (state !== 'kept') {
        logger.info({ vault: layout.root, poll: settings.poll }, state === 'started' ? 'watching the vault' : 'watcher re-established');
        events.emit('watcher:ready', { state });
      }
    } catch (error) {
      logger.warn({ err: error }, 'cannot watch the vault: the heartbeat carries on');
    }
    try {
      // Change rounds use what the cache can vouch for; every other round reads it all again.
      if (reason !== 'change' && reason !== 'again') cache.clear();
      const result = await runLockedRound({ ...prepared, now: env.clock(), cache }, logger, spawner, 'watch');
      report(deps, result, reason);
      const outcome: RoundOutcome = result.skipped ? 'skipped' : 'ok';
      events.emit('round:end', { reason, outcome, result });
      return outcome;
    } catch (error) {
      logger.error({ err: error }, 'round failed');
      events.emit('round:end', { reason, outcome: 'failed', error: error as Error });
      return 'failed';
    }
  };

  scheduler = new RoundScheduler({
    debounceMs: settings.debounceMs,
    intervalMs: settings.intervalMs,
    retryMs: settings.retryMs ?? Math.min(Math.max(settings.debounceMs * 2, 1_000), settings.intervalMs),
    run,
    ...(deps.timers ? { timers: deps.timers } : {}),
  });
  logger.info({ vault: layout.root, intervalMs: settings.intervalMs, debounceMs: settings.debounceMs, poll: settings.poll }, 'board watch started');
  scheduler.start();

  let stopping: Promise<void> | undefined;
  return {
    events,
    stop() {
      stopping ??= (async () => {
        await scheduler!.stop();
        await watcher.close();
        logger.info('board watch stopped');
      })();
      return stopping;
    },
  };
}

/** One line per round on stdout (one JSON object per line with --json). */
function report(deps: WatchDeps, result: LockedRoundResult, reason: RoundReason): void {
  const { env, options } = deps;
  if (result.skipped) {
    const who = result.holder ? `pid ${result.holder.pid} on ${result.holder.host}` : 'another round';
    if (options.json) env.stdout(`${JSON.stringify({ reason, skipped: true, holder: result.holder ?? null })}\n`);
    else env.stdout(`round skipped (${reason}): the lock is held by ${who}\n`);
    return;
  }
  const { plan, transitions } = result;
  const did = (kind: string) => transitions.filter((t) => t.kind === kind).length;
  if (options.json) {
    env.stdout(`${JSON.stringify({ now: plan.now, reason, transitions, waiting: plan.waiting.length, blocked: plan.blocked.length })}\n`);
    return;
  }
  env.stdout(
    `round at ${plan.now} (${reason}): ${did('spawned')} spawned, ${did('claimed')} claimed, ${did('scheduled')} scheduled, ` +
      `${did('blocked')} blocked, ${did('reclaimed') + did('returned')} reclaimed, ${did('failed')} failed; ${plan.waiting.length} waiting\n`,
  );
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}
