import fs from 'node:fs/promises';
import path from 'node:path';
import { inputPaths } from '../core/census.js';
import { parseTimestamp } from '../core/time.js';
import { formatProblem } from '../errors.js';
import { cardSchema } from '../schema/card.js';
import { isCardFileName, type VaultLayout } from '../vault/layout.js';
import { moveCardLocked, withCardLock } from '../vault/card-lock.js';
import { MoveClashError } from '../vault/move-card.js';
import { mapLimit, readParsed } from '../vault/read-card.js';

export const DEFAULT_ARCHIVE_AGE_MS = 7 * 86_400_000;

export interface ArchiveResult {
  readonly archived: readonly { card: string; to: string }[];
  /** Closed cards left in done/, each with the reason (never skipped in silence). */
  readonly kept: readonly { card: string; reason: string }[];
  /** Cards closed more recently than the age limit: not due yet. */
  readonly young: number;
}

/**
 * `board archive`: move closed cards from `done/` into `archive/YYYY-MM/` by the (local) month
 * of their `closed` timestamp. A deterministic job for the OS scheduler, not for an LLM; the
 * command runs it under the round lock so no tick reads `done/` while it moves.
 *
 * A card some open card still names as an input (a director sleeping on its `dependent_task`,
 * a step reading its predecessor's output) stays in `done/`, whatever its age: archiving it
 * would leave that card waiting forever.
 */
export async function archiveCards(layout: VaultLayout, now: Date, olderThanMs = DEFAULT_ARCHIVE_AGE_MS): Promise<ArchiveResult> {
  const names = await cardNames(layout.done);
  const needed = await neededInputs(layout);
  const archived: { card: string; to: string }[] = [];
  const kept: { card: string; reason: string }[] = [];
  let young = 0;
  for (const name of names) {
    const parsed = await readParsed(path.join(layout.done, name), `done/${name}`, cardSchema);
    if (!parsed.ok) {
      kept.push({ card: name, reason: `unreadable, not touched: ${parsed.problems.map(formatProblem).join('; ')}` });
      continue;
    }
    const closed = parsed.value.closed ?? '';
    const at = parseTimestamp(closed);
    if (closed === '' || Number.isNaN(at)) {
      kept.push({ card: name, reason: closed === '' ? 'no `closed` timestamp: its month is unknown' : `\`closed\` "${closed}" is not a timestamp` });
      continue;
    }
    if (now.getTime() - at < olderThanMs) {
      young += 1;
      continue;
    }
    const users = needed.get(`KANBAN/done/${name}`);
    if (users) {
      kept.push({ card: name, reason: `still an input of ${users.join(', ')}` });
      continue;
    }
    const closedAt = new Date(at);
    const month = `${closedAt.getFullYear()}-${String(closedAt.getMonth() + 1).padStart(2, '0')}`;
    const dir = path.join(layout.archive, month);
    await fs.mkdir(dir, { recursive: true });
    try {
      await withCardLock(layout.kanban, name, 'archive', { waitMs: 2_000 }, async (lock) => {
        // Under the lock, the card must still be the one judged above (a note or a fix since?).
        const now = await fs.readFile(path.join(layout.done, name), 'utf8').catch(() => undefined);
        if (now !== parsed.text) throw new Error('it changed or moved while being archived');
        await moveCardLocked(lock, path.join(layout.done, name), path.join(dir, name));
      });
      archived.push({ card: name, to: `archive/${month}/${name}` });
    } catch (error) {
      kept.push({
        card: name,
        reason: error instanceof MoveClashError ? `archive/${month}/${name} already exists (both files left as they are)` : `not moved: ${(error as Error).message}`,
      });
    }
  }
  return { archived, kept, young };
}


async function cardNames(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter(isCardFileName).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Every input path named by an open card (pending or in-progress), with the cards naming it. */
async function neededInputs(layout: VaultLayout): Promise<Map<string, string[]>> {
  const needed = new Map<string, string[]>();
  for (const dir of [layout.pending, layout.inProgress]) {
    const names = await cardNames(dir);
    const cards = await mapLimit(names, 32, (n) => readParsed(path.join(dir, n), n, cardSchema));
    for (const c of cards) {
      if (!c.ok) continue;
      for (const { path: p } of inputPaths(c.value)) needed.set(p, [...(needed.get(p) ?? []), c.file]);
    }
  }
  return needed;
}
