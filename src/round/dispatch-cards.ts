import fs from 'node:fs/promises';
import path from 'node:path';
import { composeCommand } from '../core/compose.js';
import { runIdFor } from '../core/zombies.js';
import type { PlannedDispatch } from '../core/types.js';
import { localDate } from '../core/time.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { moveCardLocked } from '../vault/card-lock.js';
import { editCard } from '../vault/edit-card.js';
import { MoveClashError } from '../vault/move-card.js';
import { underCardLock } from './card-step.js';
import { crashPoint } from '../vault/crash-seam.js';
import { BOARD_CLI } from '../entry-points.js';
import { CAUSE_VAR, newEventId } from '../journal/index.js';
import { recordRun } from '../provenance/record-run.js';
import { jobSandbox } from '../sandbox/job.js';
import { jobProxy } from '../proxy/job.js';
import { roundJournalOf } from './journal-round.js';
import type { RoundContext, Transition } from './context.js';
import type { RunJob } from './spawner.js';
import type { Harness } from '../schema/harness.js';

/**
 * Step 4: claim each planned card by an exclusive move into `in-progress/`, stamp the claim
 * (`agent`, `claimed`, `model` and a Record milestone), then hand the run to the spawner.
 *
 * The claims run side by side, `CLAIMS_AT_ONCE` at most: each is a few dozen file operations
 * (the card's lock, the move, the stamp, the journal, the run's provenance), and over a network
 * filesystem every one is a round trip to the server, so one after the other they were most of a
 * round (8 claims ~2.4 s of a 1k-card tick over sshfs). Each card has its own lock, token and
 * run id; nothing one claim does is read by another. The workers still start one at a time in
 * the plan's order (urgent first, then oldest): a card's start waits for its own claim and for
 * the start of every card before it. The transitions come back in that order too.
 */
export async function dispatchCards(ctx: RoundContext, planned: readonly PlannedDispatch[]): Promise<Transition[]> {
  const claims: Promise<Claim>[] = [];
  for (const [i, item] of planned.entries()) {
    const slot = i >= CLAIMS_AT_ONCE ? settled(claims[i - CLAIMS_AT_ONCE]!) : Promise.resolve();
    const claim = slot.then(() => claimOne(ctx, item, i));
    // Handled here at once: a claim that fails while an earlier card starts is not an unhandled rejection.
    claim.catch(() => undefined);
    claims.push(claim);
  }
  const out: Transition[] = [];
  let failure: { error: unknown } | undefined;
  for (const claim of claims) {
    try {
      const claimed = await claim;
      out.push(...(claimed.ok ? await startRun(ctx, claimed) : claimed.transitions));
    } catch (error) {
      // As before: the round fails with the first such error, after every other claim has its start.
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return out;
}

/** Claims in flight at once (a round dispatches `max_dispatches_per_round`, 5 by default). */
export const CLAIMS_AT_ONCE = 8;

function settled(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The claim token of the round's `index`-th dispatch: the round's clock plus `index` ms, so every
 * card claimed in one round has its own `claimed` value and no worker's token fences a sibling's
 * card (a real timestamp, still: `claimed` is when the claim was made, to the millisecond).
 */
export function claimTokenFor(now: Date, index: number): string {
  return new Date(now.getTime() + index).toISOString();
}

/** A card claimed and stamped, with all its worker's start needs; or why it was not. */
type Claim = ({ readonly ok: true } & ClaimedRun) | { readonly ok: false; readonly transitions: Transition[] };

interface ClaimedRun {
  readonly item: PlannedDispatch;
  readonly log: RoundContext['logger'];
  readonly runId: string;
  readonly to: string;
  readonly claimed: string;
  readonly claimEvent: string;
  readonly claimedTransition: Transition;
  readonly harness: Harness;
  readonly command: RunJob['command'];
  readonly argvLength: number;
  readonly sandbox: NonNullable<RunJob['sandbox']>;
  readonly proxy: RunJob['proxy'] | undefined;
  readonly logFile: string;
  readonly manifest: string | undefined;
}

/** Everything of a dispatch up to its worker's start: compose, claim, stamp, journal, provenance. */
async function claimOne(ctx: RoundContext, item: PlannedDispatch, index: number): Promise<Claim> {
  const log = ctx.logger.child({ card: item.card, profile: item.profile });
  const from = path.join(ctx.layout.pending, item.card);
  const to = path.join(ctx.layout.inProgress, item.card);
  const harness = ctx.board.harnesses.get(item.harness)!;
  const claimed = claimTokenFor(ctx.now, index);
  const runId = runIdFor(item.card, claimed, item.attempts);
  const journal = roundJournalOf(ctx);
  // The claim event's id exists before the claim: the worker gets it as the cause of what it does.
  const claimEvent = newEventId();

  // Compose before claiming: a card whose command cannot be built is never claimed.
  const composed = composeCommand({
    harness,
    model: item.model,
    profile: ctx.layout.absolute(item.profilePath),
    card: to,
    vault: ctx.layout.root,
    privateEnv: ctx.board.privateEnv,
    boardEnv: {
      BOARD_CARD: to,
      BOARD_CLAIM: claimed,
      BOARD_VAULT: ctx.layout.root,
      BOARD_CONFIG: ctx.board.config.configFile,
      BOARD_RUN: runId,
      [CAUSE_VAR]: claimEvent,
      // The worker reaches the `board card` verbs through this very CLI, whatever its PATH.
      BOARD_BIN: BOARD_CLI,
    },
    fallbackPath: process.env.PATH ?? '/usr/bin:/bin',
    resolveDir: (dir) => path.resolve(ctx.layout.root, dir),
    harnessesDir: ctx.board.config.harnessesDir,
  });
  if (!composed.ok) {
    log.warn({ reason: composed.reason }, 'not dispatched');
    return { ok: false, transitions: [{ kind: 'failed', card: item.card, detail: composed.reason }] };
  }
  const c = ctx.board.config;
  const sandbox = jobSandbox(harness, { vault: ctx.layout.root, harnessesDir: c.harnessesDir, configFile: c.configFile, privateEnvFile: c.privateEnvFile, logsDir: c.logsDir }, process.env);
  if (!sandbox.ok) {
    log.warn({ reason: sandbox.reason }, 'not dispatched');
    return { ok: false, transitions: [{ kind: 'failed', card: item.card, detail: `harness ${item.harness} cannot start: ${sandbox.reason}` }] };
  }
  // The keys stay with the run's credential proxy: the worker gets placeholders in their place.
  const proxied = jobProxy(harness, ctx.board, { runId, card: item.card, profileBudget: item.budget });
  if (!proxied.ok) {
    log.warn({ reason: proxied.reason }, 'not dispatched');
    return { ok: false, transitions: [{ kind: 'failed', card: item.card, detail: `harness ${item.harness} cannot start: ${proxied.reason}` }] };
  }
  const command = { ...composed.command, env: { ...composed.command.env, ...proxied.workerEnv } };

  // The claim, under the card's transition lock: still claimable as the census saw it, moved by a
  // rename that cannot replace a card (checked under the lock), then stamped.
  type ClaimOutcome = { ok: true; text: string } | { ok: false; detail: string };
  const claim = await underCardLock<ClaimOutcome>(ctx, item.card, 'claim', (detail) => ({ ok: false as const, detail: `not claimed: ${detail}` }), async (lock) => {
    try {
      const current = parseFrontMatter(await fs.readFile(from, 'utf8')).data;
      if (typeof current.blocked === 'string' && current.blocked.trim() !== '') return { ok: false as const, detail: 'not claimed: it was blocked since the census' };
      if (current.claimed !== undefined && current.claimed !== null) return { ok: false as const, detail: 'not claimed: it carries a claim since the census' };
      // moveCardLocked makes in-progress/ when it is missing.
      await moveCardLocked(lock, from, to);
    } catch (error) {
      const detail =
        error instanceof MoveClashError
          ? `not claimed: in-progress/${item.card} already exists (both files left untouched)`
          : (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'not claimed: the card left pending/ before it could be claimed'
            : `not claimed: ${(error as Error).message}`;
      log.warn({ err: error }, detail);
      return { ok: false as const, detail };
    }
    crashPoint('claim:moved');
    try {
      const how = item.via === 'recipient' ? `pushed by recipient` : `matched handles "${item.descriptor}"`;
      const text = await editCard(
        to,
        {
          fields: { agent: item.profile, claimed, model: item.model },
          record: { actor: 'board', milestones: [`claimed for ${item.profile} (${how}); harness ${item.harness}, model ${item.model}.`] },
          lock,
        },
        ctx.now,
      );
      return { ok: true as const, text };
    } catch (error) {
      // The card is in in-progress/ without a claim: the next tick returns it as a torn claim.
      log.error({ err: error }, 'claimed but could not stamp the card');
      return { ok: false as const, detail: `moved to in-progress/ but not stamped: ${(error as Error).message}` };
    }
  });
  if (!claim.ok) return { ok: false, transitions: [{ kind: 'failed', card: item.card, detail: claim.detail }] };
  const stamped = claim.text;
  crashPoint('claim:stamped');
  const claimedTransition: Transition = { kind: 'claimed', card: item.card, profile: item.profile, runId, detail: `${item.harness} / ${item.model}`, event: claimEvent };
  log.info({ runId, harness: item.harness, model: item.model }, 'card claimed');
  await journal.append({
    id: claimEvent,
    kind: 'card:claimed',
    actor: 'board',
    card: item.card,
    profile: item.profile,
    run: runId,
    cause: await journal.claimCause(item.card, stamped),
    detail: claimedTransition.detail,
    data: { harness: item.harness, model: item.model, via: item.via, descriptor: item.descriptor, attempts: item.attempts },
  });

  const logFile = path.join(ctx.board.config.logsDir, 'runs', localDate(ctx.now), `${runId}.log`);
  // Provenance: every component of the request, content-addressed, and the run's manifest.
  let manifest: string | undefined;
  if (journal.journal.enabled) {
    try {
      const recorded = await recordRun({
        logsDir: ctx.board.config.logsDir,
        runId,
        card: item.card,
        cardText: stamped,
        profile: item.profile,
        profileFile: ctx.layout.absolute(item.profilePath),
        vault: ctx.layout.root,
        harnessName: item.harness,
        harness,
        model: item.model,
        claim: claimed,
        command,
        paths: { profile: ctx.layout.absolute(item.profilePath), card: to, vault: ctx.layout.root, harnesses: ctx.board.config.harnessesDir },
        log: logFile,
        cause: claimEvent,
        privateEnv: ctx.board.privateEnv,
      });
      manifest = recorded.file;
    } catch (error) {
      log.warn({ err: error, runId }, 'run not recorded in the object store: it is dispatched without provenance');
    }
  }
  return {
    ok: true,
    item,
    log,
    runId,
    to,
    claimed,
    claimEvent,
    claimedTransition,
    harness,
    command,
    argvLength: [composed.command.file, ...composed.command.args].length,
    sandbox: sandbox.sandbox,
    proxy: proxied.proxy,
    logFile,
    manifest,
  };
}

/** The claimed card's worker, handed to the spawner, and its `card:spawned` event. */
async function startRun(ctx: RoundContext, run: ClaimedRun): Promise<Transition[]> {
  const { item, log, runId, harness, logFile, manifest, claimEvent, claimedTransition } = run;
  const journal = roundJournalOf(ctx);
  try {
    // The log's folder is the supervisor's to make (it opens the log).
    const provenance = {
      logsDir: ctx.board.config.logsDir,
      cause: claimEvent,
      ...(manifest !== undefined ? { manifest } : {}),
      ...(harness.cost !== undefined ? { cost: harness.cost } : {}),
    };
    const started = await ctx.spawner.start({
      runId,
      card: run.to,
      claim: run.claimed,
      kanbanDir: ctx.layout.kanban,
      logFile,
      command: run.command,
      harness: item.harness,
      ...(harness.timeout !== undefined ? { timeoutMs: harness.timeout } : {}),
      ...(harness.runner !== undefined ? { runner: harness.runner } : {}),
      sandbox: run.sandbox,
      ...(run.proxy ? { proxy: run.proxy } : {}),
      ...(journal.journal.enabled ? { provenance } : {}),
    });
    log.info({ runId, pid: started.pid, argv: run.argvLength, logFile }, 'worker spawned');
    const spawned = await journal.append({ kind: 'card:spawned', actor: 'board', card: item.card, run: runId, cause: claimEvent, pid: started.pid, detail: logFile });
    return [claimedTransition, { kind: 'spawned', card: item.card, runId, ...(started.pid !== undefined ? { pid: started.pid } : {}), detail: logFile, event: spawned.id }];
  } catch (error) {
    // Left claimed: with no run record it is returned as never started once the grace passes.
    log.error({ err: error, runId }, 'spawn failed');
    return [claimedTransition, { kind: 'failed', card: item.card, runId, detail: `spawn failed: ${(error as Error).message}` }];
  }
}
