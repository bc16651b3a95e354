import path from 'node:path';
import type { Plan } from '../core/types.js';
import { writeFileAtomic } from '../vault/atomic-write.js';
import { BOARD_RECORD_MAX_BYTES, readBoardText } from '../vault/board-file.js';
import type { Transition } from './context.js';
import { ensureFolder } from '../vault/file-ops.js';

/**
 * The last round's time and outcome, for `board status`: one small file in the logs folder,
 * replaced atomically by every round that ran (tick or watch). `dry-run` never writes it.
 */
export interface LastRound {
  readonly time: string;
  readonly outcome: 'ok' | 'failed' | 'skipped';
  /** Who ran it: `tick` or `watch`. */
  readonly by: string;
  readonly vault: string;
  readonly counts?: Readonly<Record<string, number>>;
  readonly error?: string;
}

export function lastRoundFile(logsDir: string): string {
  return path.join(logsDir, 'last-round.json');
}

export function roundCounts(plan: Plan, transitions: readonly Transition[]): Record<string, number> {
  const counts: Record<string, number> = {
    scheduled: plan.scheduled.length,
    dispatch: plan.dispatch.length,
    waiting: plan.waiting.length,
    blocked: plan.blocked.length,
    zombies: plan.zombies.length,
    invalid: plan.invalid.length,
  };
  for (const t of transitions) counts[`did:${t.kind}`] = (counts[`did:${t.kind}`] ?? 0) + 1;
  return counts;
}

export async function writeLastRound(logsDir: string, record: LastRound): Promise<void> {
  await ensureFolder(logsDir);
  await writeFileAtomic(lastRoundFile(logsDir), `${JSON.stringify(record, null, 2)}\n`);
}

export async function readLastRound(logsDir: string): Promise<LastRound | undefined> {
  try {
    const data = JSON.parse(await readBoardText(lastRoundFile(logsDir), { maxBytes: BOARD_RECORD_MAX_BYTES })) as Partial<LastRound>;
    if (typeof data.time === 'string' && typeof data.outcome === 'string') return data as LastRound;
  } catch {
    // Never written yet, or unreadable: status says "no round recorded".
  }
  return undefined;
}
