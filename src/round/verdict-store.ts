import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../vault/atomic-write.js';
import { openBoardAppend, readBoardText } from '../vault/board-file.js';
import { ensureFolder } from '../vault/file-ops.js';

/**
 * The census's memory of the last verdict journaled for each card (`waiting: <reason>` or
 * `blocked`), so a verdict is journaled only when it changes: `<logs>/verdicts.json`, the whole
 * map as of its last compaction, and `<logs>/verdicts.log`, one JSON line per change since
 * (`{"card": …, "verdict": … | null}`, null when the card has no verdict any more).
 *
 * Why two files: a round changes few verdicts (a burst's round dispatches five cards of
 * thousands waiting; a watch round judges the cards one drop named), and rewriting the whole map
 * every round made each round's cost grow with the backlog it left behind. A round now appends
 * its changes, a few lines; the map is rewritten (and the log removed) only once the log has
 * grown past half the map (and at least COMPACT_MIN lines), so the bytes written stay
 * proportional to the changes.
 *
 * Reading is the map plus the log, in order. A torn last line (a round killed mid-append) is
 * skipped: at worst a verdict is journaled again, as when either file is unreadable. In a
 * long-running `board watch` the merged map is kept between rounds, keyed by both files' stat
 * (device, inode, size, times): a round of another process (a `board tick` beside it) changes a
 * key and the next round reads them again. Rounds hold the round lock, so only one writes.
 */
const MAP_FILE = 'verdicts.json';
const LOG_FILE = 'verdicts.log';
const COMPACT_MIN = 1_000;

export type VerdictChange = readonly [card: string, verdict: string | null];

interface Remembered {
  readonly key: string;
  readonly verdicts: Map<string, string>;
  readonly mapSize: number;
  readonly logLines: number;
}

/** Per logs folder: the merged map as the last round of this process left it. */
const remembered = new Map<string, Remembered>();

export class VerdictStore {
  private readonly mapFile: string;
  private readonly logFile: string;
  private state: Remembered | undefined;

  constructor(private readonly logsDir: string) {
    this.mapFile = path.join(logsDir, MAP_FILE);
    this.logFile = path.join(logsDir, LOG_FILE);
  }

  /** The last verdict of every card that has one (read-only: changes go through `apply`). */
  async load(): Promise<ReadonlyMap<string, string>> {
    const key = await this.key();
    const known = remembered.get(this.logsDir);
    if (known && known.key === key) {
      this.state = known;
      return known.verdicts;
    }
    const verdicts = new Map<string, string>();
    let mapSize = 0;
    try {
      const data = JSON.parse(await readBoardText(this.mapFile)) as { cards?: Record<string, unknown> };
      for (const [card, verdict] of Object.entries(data.cards ?? {})) if (typeof verdict === 'string') verdicts.set(card, verdict);
      mapSize = verdicts.size;
    } catch {
      // First round with a journal, or an unreadable map: every verdict counts as new.
    }
    let logLines = 0;
    try {
      for (const line of (await readBoardText(this.logFile)).split('\n')) {
        if (line === '') continue;
        logLines += 1;
        applyLine(verdicts, line);
      }
    } catch {
      // No changes since the last compaction.
    }
    this.state = { key, verdicts, mapSize, logLines };
    remembered.set(this.logsDir, this.state);
    return verdicts;
  }

  /** Record the changes (after `load`): appended to the log, or the map rewritten when the log is long. */
  async apply(changes: readonly VerdictChange[]): Promise<void> {
    if (changes.length === 0) return;
    const state = this.state ?? { key: '', verdicts: new Map<string, string>(), mapSize: 0, logLines: 0 };
    // Changed in place: `load`'s caller is done with it by now, and it is forgotten just below
    // until the files hold the same.
    const verdicts = state.verdicts;
    for (const [card, verdict] of changes) {
      if (verdict === null) verdicts.delete(card);
      else verdicts.set(card, verdict);
    }
    // Forgotten first: should a write fail half-way, the next round reads the files again.
    remembered.delete(this.logsDir);
    this.state = undefined;
    await ensureFolder(this.logsDir);
    const logLines = state.logLines + changes.length;
    let next: Omit<Remembered, 'key'>;
    if (logLines > Math.max(COMPACT_MIN, state.mapSize / 2)) {
      await writeFileAtomic(this.mapFile, `${JSON.stringify({ cards: Object.fromEntries(verdicts) }, null, 1)}\n`);
      await fs.rm(this.logFile, { force: true });
      next = { verdicts, mapSize: verdicts.size, logLines: 0 };
    } else {
      const handle = await openBoardAppend(this.logFile);
      try {
        await handle.write(changes.map(([card, verdict]) => `${JSON.stringify({ card, verdict })}\n`).join(''));
      } finally {
        await handle.close();
      }
      next = { verdicts, mapSize: state.mapSize, logLines };
    }
    this.state = { ...next, key: await this.key() };
    remembered.set(this.logsDir, this.state);
  }

  /** Both files' identity and state; a missing one counts as such. */
  private async key(): Promise<string> {
    const one = async (file: string) => {
      const s = await fs.lstat(file, { bigint: true }).catch(() => undefined);
      return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : '-';
    };
    return `${await one(this.mapFile)}|${await one(this.logFile)}`;
  }
}

function applyLine(verdicts: Map<string, string>, line: string): void {
  let change: unknown;
  try {
    change = JSON.parse(line);
  } catch {
    return; // a torn last line
  }
  if (typeof change !== 'object' || change === null) return;
  const { card, verdict } = change as { card?: unknown; verdict?: unknown };
  if (typeof card !== 'string') return;
  if (verdict === null) verdicts.delete(card);
  else if (typeof verdict === 'string') verdicts.set(card, verdict);
}

/** What a round's census changes: for a full round every card, for a partial one only its cards. */
export function verdictChanges(previous: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>, only?: ReadonlySet<string>): VerdictChange[] {
  const changes: VerdictChange[] = [];
  for (const [card, verdict] of next) if (previous.get(card) !== verdict) changes.push([card, verdict]);
  if (only) {
    for (const card of only) if (!next.has(card) && previous.has(card)) changes.push([card, null]);
  } else {
    for (const card of previous.keys()) if (!next.has(card)) changes.push([card, null]);
  }
  return changes;
}
