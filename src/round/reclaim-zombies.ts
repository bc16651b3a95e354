import fs from 'node:fs/promises';
import path from 'node:path';
import { parseTimestamp } from '../core/time.js';
import type { PlannedReclaim } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { hostIdentity } from '../vault/host-identity.js';
import { MoveClashError } from '../vault/move-card.js';
import { returnToPending } from '../vault/return-card.js';
import { createRunRecordExclusive, readRunRecord, requestStop } from '../vault/runs.js';
import { stopRecordedWorker } from '../worker/stop-recorded.js';
import { failedTransition, underCardLock } from './card-step.js';
import type { RoundContext, Transition } from './context.js';
import { finishClose } from './finish-close.js';

/**
 * Step 5: return reclaimed claims to `pending/`, each under its card's transition lock, so a
 * worker closing or failing it at the same moment either wins (the reclaim then finds the claim
 * gone and leaves it) or finds its claim gone (fencing). The worker of a reclaimed claim is
 * stopped: a stop request its supervisor reads on any host, and on this host its process group
 * is signalled at once.
 */
export async function reclaimZombies(ctx: RoundContext, planned: readonly PlannedReclaim[]): Promise<Transition[]> {
  const out: Transition[] = [];
  for (const item of planned) {
    const done = await reclaimOne(ctx, item);
    if (done) out.push(done);
  }
  return out;
}

/**
 * Whether the card reached done/ under the claim the round planned on: its worker closed it
 * after the census read it. Not a failure, and nothing for this round to do or report.
 */
async function closedMeanwhile(ctx: RoundContext, item: PlannedReclaim): Promise<boolean> {
  if (item.claim === undefined) return false;
  try {
    return parseFrontMatter(await fs.readFile(path.join(ctx.layout.done, item.card), 'utf8')).data.claimed === item.claim;
  } catch {
    return false;
  }
}

async function reclaimOne(ctx: RoundContext, item: PlannedReclaim): Promise<Transition | undefined> {
  if (item.kind === 'closed') return finishClose(ctx, item);
  const log = ctx.logger.child({ card: item.card, kind: item.kind });
  const from = path.join(ctx.layout.inProgress, item.card);
  const failed = failedTransition(item.card);
  if (item.kind === 'never-started' && item.runId && item.claim) {
    // Decide against a supervisor that may be starting right now: only one of us creates the record.
    const here = hostIdentity();
    const gaveUp = await createRunRecordExclusive(ctx.layout.kanban, {
      runId: item.runId,
      card: item.card,
      claim: item.claim,
      state: 'abandoned',
      host: here.host,
      ...(here.pidns !== undefined ? { pidns: here.pidns } : {}),
      end: ctx.now.toISOString(),
    }).catch((error: Error) => error);
    if (gaveUp instanceof Error) return failed(`not returned: cannot record the run as abandoned: ${gaveUp.message}`);
    if (!gaveUp) {
      const existing = await readRunRecord(ctx.layout.kanban, item.runId);
      if (existing?.state !== 'abandoned' && existing?.startError === undefined) return failed('its worker started just now: left claimed');
    }
  }
  const spent = item.kind === 'expired' || item.kind === 'dead-worker';
  return underCardLock<Transition | undefined>(ctx, item.card, 'reclaim', failed, async (lock) => {
    let current: Record<string, unknown>;
    try {
      current = parseFrontMatter(await fs.readFile(from, 'utf8')).data;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return failed(`not reclaimed: ${(error as Error).message}`);
      // The round judges what is, not its census: a card its worker closed is not a failure.
      if (await closedMeanwhile(ctx, item)) return undefined;
      return failed('left in-progress/ before it could be reclaimed, and is not in done/ under that claim');
    }
    // Fencing: reclaim only the claim we planned on, not a newer one (a torn claim has none).
    const stillTorn = typeof current.claimed !== 'string' || Number.isNaN(parseTimestamp(current.claimed));
    if (item.claim !== undefined ? current.claimed !== item.claim : !stillTorn) {
      return failed('its claim changed since the census: left as it is');
    }
    if (item.runId && spent) await requestStop(ctx.layout.kanban, item.runId, { reason: 'reclaimed', at: ctx.now.toISOString(), detail: item.reason }).catch(() => undefined);
    const milestones = [
      `${item.reason}; returned to pending/ ${spent ? `(attempt ${item.attempts} of ${ctx.board.config.max_attempts})` : `without spending an attempt (attempts ${item.attempts}, as written)`}.`,
      ...(item.block ? [`blocked: ${item.repeated ? `${item.repeated}; retrying would repeat it` : item.kind === 'never-started' ? 'its worker never started, again' : 'attempts exhausted'}. A human clears \`blocked\` to release it.`] : []),
    ];
    try {
      await returnToPending(
        lock,
        from,
        ctx.layout.pending,
        {
          fields: { attempts: item.attempts, agent: undefined, claimed: undefined, model: undefined, ...(item.block ? { blocked: item.block } : {}) },
          record: { actor: 'board', milestones },
        },
        ctx.now,
      );
    } catch (error) {
      const detail = error instanceof MoveClashError ? `cannot return: pending/${item.card} already exists (both files left untouched)` : `not reclaimed: ${(error as Error).message}`;
      log.warn({ err: error }, detail);
      return failed(detail);
    }
    if (item.runId && spent) {
      // A worker whose supervisor is gone has nobody to escalate for it: it gets SIGKILL now.
      const record = await readRunRecord(ctx.layout.kanban, item.runId);
      const orphaned = item.kind === 'dead-worker' && record?.state === 'started';
      const stopped = await stopRecordedWorker(record, orphaned ? 'SIGKILL' : 'SIGTERM');
      if (stopped) log.warn({ runId: item.runId, pid: record?.workerPid, jobId: record?.jobId }, stopped === 'job cancelled' ? 'job cancelled' : orphaned ? 'orphaned worker killed' : 'worker signalled to stop');
    }
    log.warn({ reason: item.reason, attempts: item.attempts, blocked: Boolean(item.block) }, spent ? 'card reclaimed' : 'claim returned');
    const detail = item.repeated ? `${item.reason}; blocked: the same failure twice in a row` : item.reason;
    return { kind: spent ? 'reclaimed' : 'returned', card: item.card, ...(item.runId ? { runId: item.runId } : {}), detail };
  });
}
