import { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import { runLockedRound, type LockedRoundResult } from '../round/locked-round.js';
import { runPartialRound } from '../round/partial-round.js';
import type { Spawner } from '../round/spawner.js';
import type { VaultSnapshot } from '../core/types.js';
import { CensusCache } from '../vault/census-cache.js';
import { prepare, type CommandEnv, type GlobalOptions } from '../commands/common.js';
import { RoundScheduler, type RoundOutcome, type RoundReason, type Timers } from './scheduler.js';
import { VaultWatcher } from './vault-watcher.js';
import type { WatchEvent } from './relevance.js';
import { decideFastPath, LinkedMissing, MAX_PARTIAL_CARDS, needsFullRound, neutralDoneLandings, type BatchChange } from './fast-path.js';

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
  /** `partial`: the round was the fast path's (only the batch's pending cards planned). */
  'round:end': [{ reason: RoundReason; outcome: RoundOutcome; result?: LockedRoundResult; error?: Error; partial?: boolean }];
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
 * read every byte like a tick.
 *
 * The fast path: a change round whose debounced batch names only cards added or changed in
 * `pending/` (and closes landing in `done/` that no pending card's inputs can be waiting for),
 * after a full round that left no card waiting for capacity, is a partial round that
 * plans just those cards (see src/round/partial-round.ts and fast-path.ts); anything else, or any
 * doubt, is a full round. Besides the cache, the daemon keeps scalars, the batch of changes since
 * the last round began (bounded: past MAX_PARTIAL_CARDS names it only counts as "too many"), the
 * last full round's list of PROFILE.md paths and the input paths its pending cards missed.
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
      if (batch.size < MAX_PARTIAL_CARDS || batch.has(path)) {
        // A card's later event (add, then change) keeps the first kind: both are "arrived or edited".
        if (!batch.has(path)) batch.set(path, { event, path });
      } else batchOverflow = true;
      events.emit('vault:change', { event, path });
      scheduler?.signal();
    },
  });
  let vaultDown = false;
  const cache = new CensusCache();
  // The fast path's state: what changed since the last round began, whether only a full round
  // may run next, and the profiles the last full round read.
  const batch = new Map<string, BatchChange>();
  let batchOverflow = false;
  let fullNeeded = true;
  let profileFiles: string[] | undefined;
  // Input paths pending cards were missing at the last full round (and partial ones since).
  let missingInputs: Set<string> | undefined;
  // Which of them are links, looked up once each per full round.
  let linkedMissing = new LinkedMissing();

  const run = async (reason: RoundReason): Promise<RoundOutcome> => {
    events.emit('round:start', { reason });
    // Every round takes the batch: a full round reads the whole board, a partial one these cards.
    const changes = [...batch.values()];
    const overflow = batchOverflow;
    batch.clear();
    batchOverflow = false;
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
    const neutralDone = reason === 'change' && !fullNeeded ? await neutralDoneLandings(layout.root, changes, missingInputs, linkedMissing).catch(() => new Set<string>()) : new Set<string>();
    const decision = decideFastPath(reason, changes, { fullNeeded: fullNeeded || profileFiles === undefined || missingInputs === undefined, overflow, neutralDone });
    if (decision.kind === 'partial' && decision.cards.length === 0) {
      // Only closes that no pending card waits on: nothing a round could do until the heartbeat.
      logger.debug({ changes: changes.length }, 'nothing to plan: closes no pending card waits on');
      events.emit('round:end', { reason, outcome: 'ok', partial: true });
      return 'ok';
    }
    if (decision.kind === 'partial' && profileFiles) {
      try {
        const partial = await runPartialRound({ ...prepared, now: env.clock(), cache, profileFiles, cards: decision.cards }, logger, spawner);
        if (partial.fallback === undefined) {
          fullNeeded = needsFullRound(partial.plan, partial.transitions);
          for (const rel of partial.missingInputs) missingInputs?.add(rel);
          const result: LockedRoundResult = { skipped: false, plan: partial.plan, transitions: partial.transitions, ...(partial.tookOverFrom ? { tookOverFrom: partial.tookOverFrom } : {}) };
          report(deps, result, reason, true);
          events.emit('round:end', { reason, outcome: 'ok', result, partial: true });
          return 'ok';
        }
        logger.debug({ why: partial.fallback, cards: decision.cards }, 'fast path declined: a full round instead');
      } catch (error) {
        // Whatever it did is on disk and journaled; the full round below judges the board as it is.
        logger.warn({ err: error }, 'partial round failed: a full round instead');
      }
    } else if (reason === 'change') {
      logger.debug({ why: decision.kind === 'full' ? decision.why : 'no profiles known yet' }, 'full round');
    }
    try {
      // Change rounds use what the cache can vouch for; every other round reads it all again.
      if (reason !== 'change' && reason !== 'again') cache.clear();
      fullNeeded = true;
      const onSnapshot = (snapshot: VaultSnapshot) => {
        profileFiles = snapshot.profiles.map((p) => layout.absolute(p.file));
        missingInputs = new Set([...snapshot.inputs].filter(([, fact]) => !fact.exists).map(([rel]) => rel));
        linkedMissing = new LinkedMissing();
      };
      const result = await runLockedRound({ ...prepared, now: env.clock(), cache, onSnapshot }, logger, spawner, 'watch');
      if (!result.skipped) fullNeeded = needsFullRound(result.plan, result.transitions);
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
function report(deps: WatchDeps, result: LockedRoundResult, reason: RoundReason, partial = false): void {
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
    env.stdout(`${JSON.stringify({ now: plan.now, reason, ...(partial ? { partial: true } : {}), transitions, waiting: plan.waiting.length, blocked: plan.blocked.length })}\n`);
    return;
  }
  // The round's counts, then one line per card it moved: a person watching wants to know which.
  const cards = transitions.map((t) => `  ${t.kind.padEnd(9)} ${t.card}${t.profile ? ` → ${t.profile}` : ''} — ${t.detail}\n`).join('');
  env.stdout(
    `round at ${plan.now} (${reason}): ${did('spawned')} spawned, ${did('claimed')} claimed, ${did('scheduled')} scheduled, ` +
      `${did('blocked')} blocked, ${did('reclaimed') + did('returned')} reclaimed, ${did('failed')} failed; ${plan.waiting.length} waiting${partial ? ' (partial: only the changed cards were planned)' : ''}\n${cards}`,
  );
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}
