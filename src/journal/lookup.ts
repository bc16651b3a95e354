import fs from 'node:fs/promises';
import path from 'node:path';
import { localDate } from '../core/time.js';
import type { JournalEvent } from './event.js';
import { JOURNAL_DAY_MAX_BYTES, parseJournalLine, parseJournalText, type Journal, type JournalProblem } from './journal.js';
import { BoardFileError, readBoardFile } from '../vault/board-file.js';
import { CARD_KEY, cardsInDayFile, closingQuote } from './card-presence.js';

/**
 * Bounded lookups in the journal: a card's latest event, one event by id, "did a tick run in
 * this period", the journal's first event. They give the answers a full read + `JournalIndex`
 * gives (same events, same ties), without parsing the whole window:
 *
 * - Day files are read **newest first** and the search stops at the first file that holds a
 *   match: every event in an older file has an earlier `at` (a day file is its events' local
 *   date), so nothing older can be later. A card active today costs today's file, not 92 days.
 * - Inside a file, only lines holding the searched bytes (the card name as JSON, the id, the
 *   kind) are decoded and parsed, found with `Buffer.indexOf`; every other line is never split,
 *   decoded or parsed. The whole file is searched, because lines are in append
 *   order and `at` may disagree with it (`--now`, a round's start time vs. a worker's clock);
 *   the latest `at` wins, and on a tie the later line, exactly as the sorted read does.
 * - A miss (a card with no event in the window) still searches every day file of the window,
 *   but at memory speed: no line of another card is decoded.
 *
 * No side index is kept: verbs append from many processes without the round lock, and a shared
 * read-modify-write index would lose updates. The journal's own ordering is the index.
 * Assumption shared with `readJournalDir({ since })`: every event sits in the day file of its
 * local date as this process computes it (writers and readers share a time zone). As a guard, a
 * match whose `at` lies before its own file's day does not stop the search.
 */

const DAY_FILE = /^(\d{4})-(\d{2})-(\d{2})\.ndjson$/;
const NEWLINE = 0x0a;
/** Where a lookup reads day files from: the journal folder, or anything a test injects. */
export interface DayFiles {
  /** The journal folder (for problem reports), when there is one. */
  readonly dir?: string;
  /** The names of the day files present (`YYYY-MM-DD.ndjson`), in any order; none when the folder is missing. */
  names(): Promise<string[]>;
  /** One day file's bytes; an empty buffer when it vanished; a BoardFileError when it is no regular file. */
  read(name: string): Promise<Buffer>;
  /** The `"card":` values (JSON strings) the file holds, when known cheaply (see card-presence.ts). */
  cardsIn?(name: string): Promise<ReadonlySet<string> | undefined>;
}

/** The day files of a journal folder, read from disk on every call. */
export function dayFilesOf(dir: string): DayFiles {
  return {
    dir,
    async names() {
      try {
        return (await fs.readdir(dir)).filter((n) => DAY_FILE.test(n));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
    async read(name) {
      try {
        return await readBoardFile(path.join(dir, name), { maxBytes: JOURNAL_DAY_MAX_BYTES });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
        throw error;
      }
    },
    cardsIn: (name) => cardsInDayFile(dir, name),
  };
}

/**
 * A snapshot for one round: the folder is listed once, and files read are kept (up to `maxBytes`
 * in all) so the round's many lookups of recent cards read today's file once. The cap is small on
 * purpose: holding the whole window costs more in garbage collection than re-reading it on a
 * miss (measured: 2 misses on a 61 MB window, 104 ms with no file kept, 121 ms keeping 32 MB).
 * Events the round appends itself are not in it: the round keeps those (see `RoundJournal`).
 */
export function snapshotDayFiles(files: DayFiles, maxBytes = 4 * 1024 * 1024): DayFiles {
  let names: Promise<string[]> | undefined;
  const kept = new Map<string, Buffer>();
  let keptBytes = 0;
  return {
    ...(files.dir !== undefined ? { dir: files.dir } : {}),
    ...(files.cardsIn ? { cardsIn: files.cardsIn.bind(files) } : {}),
    names() {
      names ??= files.names();
      return names;
    },
    async read(name) {
      const hit = kept.get(name);
      if (hit) return hit;
      const bytes = await files.read(name);
      if (keptBytes + bytes.length <= maxBytes) {
        kept.set(name, bytes);
        keptBytes += bytes.length;
      }
      return bytes;
    },
  };
}

/** The first millisecond of a day file's local date, and of the day after. */
function dayBounds(name: string): { start: number; end: number } {
  const m = DAY_FILE.exec(name)!;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  return { start: new Date(y, mo, d).getTime(), end: new Date(y, mo, d + 1).getTime() };
}

export interface LatestOptions {
  /** Only events at or after this time (the window); older day files are never opened. */
  readonly since: Date;
  /** Only events of these kinds. */
  readonly kinds?: readonly string[] | undefined;
}

export class JournalLookup {
  /** Lines found unreadable by the lookups so far (each reported once). */
  readonly problems: JournalProblem[] = [];
  private readonly reported = new Set<string>();

  constructor(readonly files: DayFiles) {}

  /** The card's latest event (optionally of `kinds`): the last one a full sorted read would list. */
  async latestFor(card: string, options: LatestOptions): Promise<JournalEvent | undefined> {
    const kinds = options.kinds;
    const token = JSON.stringify(card);
    return this.latest(token, (e) => e.card === card && (!kinds || kinds.includes(e.kind)), options.since, token);
  }

  /**
   * The latest event (any kind) of each of `cards`: for each, what `latestFor` gives, in one pass
   * over the window instead of one search per card. A burst of cards dropped into pending/ meets
   * a round's census all at once, and a card no event names costs a whole-window search: one pass
   * for all of them keeps that round's cost at the window's bytes, not cards × window.
   * Lines are matched on their `"card":` value as the board writes it (JSON.stringify).
   */
  async latestForMany(cards: Iterable<string>, options: { readonly since: Date }): Promise<Map<string, JournalEvent | undefined>> {
    const since = options.since.getTime();
    const out = new Map<string, JournalEvent | undefined>();
    /** The cards still searched, by their name as a JSON string. */
    const open = new Map<string, string>();
    for (const card of cards) {
      out.set(card, undefined);
      open.set(JSON.stringify(card), card);
    }
    for (const name of await this.namesSince(options.since, 'newest')) {
      // A card whose latest so far is at or after this file's next day is settled (see `latest`).
      const end = dayBounds(name).end;
      for (const [token, card] of open) {
        const best = out.get(card);
        if (best && Date.parse(best.at) >= end) open.delete(token);
      }
      if (open.size === 0) break;
      // A file that names none of them is not read.
      const named = await this.files.cardsIn?.(name);
      if (named && ![...open.keys()].some((token) => named.has(token))) continue;
      for (const [card, found] of this.scanCards(await this.files.read(name), name, open, since)) {
        const best = out.get(card);
        // An equal time in an older file sorts before: the newer file's event stays.
        if (!best || found.at > best.at) out.set(card, found);
      }
    }
    return out;
  }

  /** The event with this id (ids are unique: the first found, newest day first). */
  async byId(id: string, options: { readonly since: Date }): Promise<JournalEvent | undefined> {
    const since = options.since.getTime();
    for (const name of await this.namesSince(options.since, 'newest')) {
      const found = this.scan(await this.readDay(name), name, `"id":${JSON.stringify(id)}`, (e) => e.id === id && Date.parse(e.at) >= since, true);
      if (found) return found;
    }
    return undefined;
  }

  /** Whether an event of `kind` has its time in [from, to) (and at or after `since`). Stops at the first. */
  async anyBetween(kind: string, from: Date, to: Date, options: { readonly since: Date }): Promise<boolean> {
    const lo = Math.max(from.getTime(), options.since.getTime());
    const hi = to.getTime();
    if (hi <= lo) return false;
    // Only the day files of [from, to) can hold such an event.
    const first = localDate(new Date(lo));
    const last = localDate(new Date(hi - 1));
    const accept = (e: JournalEvent) => {
      if (e.kind !== kind) return false;
      const t = Date.parse(e.at);
      return t >= lo && t < hi;
    };
    for (const name of await this.namesSince(options.since, 'newest')) {
      const day = name.slice(0, 10);
      if (day > last) continue;
      if (day < first) break;
      if (this.scan(await this.readDay(name), name, `"kind":${JSON.stringify(kind)}`, accept, true)) return true;
    }
    return false;
  }

  /** The time (`at`) of the journal's first event at or after `since`, as a sorted read would give it. */
  async earliestAt(options: { readonly since: Date }): Promise<string | undefined> {
    const since = options.since.getTime();
    let earliest: string | undefined;
    for (const name of await this.namesSince(options.since, 'oldest')) {
      // Every event in this file and the later ones is at or after the file's day.
      if (earliest !== undefined && Date.parse(earliest) < dayBounds(name).start) break;
      const read = parseJournalText((await this.readDay(name)).toString('utf8'), this.where(name));
      this.report(read.problems);
      for (const e of read.events) if (Date.parse(e.at) >= since && (earliest === undefined || e.at < earliest)) earliest = e.at;
    }
    return earliest;
  }

  private async latest(needle: string, accept: (e: JournalEvent) => boolean, sinceDate: Date, cardToken?: string): Promise<JournalEvent | undefined> {
    const since = sinceDate.getTime();
    let best: JournalEvent | undefined;
    for (const name of await this.namesSince(sinceDate, 'newest')) {
      // Every event of this file (and the older ones) is before the file's next day.
      if (best && Date.parse(best.at) >= dayBounds(name).end) break;
      if (cardToken !== undefined) {
        // A file that never names the card is not read (a new card's claim no longer reads the window).
        const named = await this.files.cardsIn?.(name);
        if (named && !named.has(cardToken)) continue;
      }
      const found = this.scan(await this.readDay(name), name, needle, (e) => accept(e) && Date.parse(e.at) >= since, false);
      // An equal time in an older file sorts before: the newer file's event stays.
      if (found && (!best || found.at > best.at)) best = found;
    }
    return best;
  }

  private async namesSince(since: Date, order: 'newest' | 'oldest'): Promise<string[]> {
    const first = localDate(since);
    const names = (await this.files.names()).filter((n) => DAY_FILE.test(n) && n.slice(0, 10) >= first).sort();
    return order === 'newest' ? names.reverse() : names;
  }

  /**
   * Search one file for lines holding `needle` and parse only those. With `first`, return the
   * first accepted event found; otherwise the accepted event with the latest `at`, a later line
   * winning a tie (the order a stable sort by `at` leaves). The search runs forward: the whole
   * file is searched either way, and `Buffer.indexOf` is ~10× faster than `lastIndexOf`.
   */
  private scan(buffer: Buffer, name: string, needle: string, accept: (e: JournalEvent) => boolean, first: boolean): JournalEvent | undefined {
    const bytes = Buffer.from(needle, 'utf8');
    const unterminated = buffer.length > 0 && buffer[buffer.length - 1] !== NEWLINE;
    if (unterminated) {
      // A crash's torn last line is worth a warning whatever it holds.
      const start = buffer.lastIndexOf(NEWLINE) + 1;
      const { problem } = parseJournalLine(buffer.toString('utf8', start), this.where(name), 0, true);
      if (problem) this.report([{ ...problem, line: lineNumber(buffer, start) }]);
    }
    let best: JournalEvent | undefined;
    let from = 0;
    for (;;) {
      const hit = buffer.indexOf(bytes, from);
      if (hit < 0) break;
      const { event, newline } = this.lineAt(buffer, hit, name, unterminated);
      if (event && accept(event)) {
        if (first) return event;
        if (!best || event.at >= best.at) best = event;
      }
      if (newline < 0) break;
      // One parse per line, however often the line holds the needle.
      from = newline + 1;
    }
    return best;
  }

  /** A day file's bytes; one that is no regular file (a link, a FIFO) is reported and read as empty. */
  private async readDay(name: string): Promise<Buffer> {
    try {
      return await this.files.read(name);
    } catch (error) {
      if (!(error instanceof BoardFileError)) throw error;
      this.report([{ file: this.where(name), line: 0, reason: error.message, torn: false }]);
      return Buffer.alloc(0);
    }
  }

  /** `scan` for many cards at once: each `"card":` value looked up in `open` (JSON string → card). */
  private scanCards(buffer: Buffer, name: string, open: ReadonlyMap<string, string>, since: number): Map<string, JournalEvent> {
    const found = new Map<string, JournalEvent>();
    const unterminated = buffer.length > 0 && buffer[buffer.length - 1] !== NEWLINE;
    if (unterminated) {
      const start = buffer.lastIndexOf(NEWLINE) + 1;
      const { problem } = parseJournalLine(buffer.toString('utf8', start), this.where(name), 0, true);
      if (problem) this.report([{ ...problem, line: lineNumber(buffer, start) }]);
    }
    let from = 0;
    for (;;) {
      const hit = buffer.indexOf(CARD_KEY, from);
      if (hit < 0) break;
      const value = hit + CARD_KEY.length - 1; // the opening quote
      const close = closingQuote(buffer, value + 1);
      if (close < 0) {
        from = value + 1;
        continue;
      }
      if (!open.has(buffer.toString('utf8', value, close + 1))) {
        from = close + 1;
        continue;
      }
      const { event, newline } = this.lineAt(buffer, hit, name, unterminated);
      // The line's own card decides (the value found may be another field's), once per line.
      const card = event?.card !== undefined ? open.get(JSON.stringify(event.card)) : undefined;
      if (event && card !== undefined && Date.parse(event.at) >= since) {
        const best = found.get(card);
        if (!best || event.at >= best.at) found.set(card, event);
      }
      if (newline < 0) break;
      from = newline + 1;
    }
    return found;
  }

  /** The journal line holding byte `hit`, parsed (a bad line reported), and where it ends (-1: at the end of the buffer). */
  private lineAt(buffer: Buffer, hit: number, name: string, unterminated: boolean): { event: JournalEvent | undefined; newline: number } {
    const start = buffer.lastIndexOf(NEWLINE, hit) + 1;
    const newline = buffer.indexOf(NEWLINE, hit);
    const end = newline < 0 ? buffer.length : newline;
    const parsed = parseJournalLine(buffer.toString('utf8', start, end), this.where(name), 0, unterminated && newline < 0);
    if (parsed.problem) this.report([{ ...parsed.problem, line: lineNumber(buffer, start) }]);
    return { event: parsed.event, newline };
  }

  private where(name: string): string {
    return this.files.dir !== undefined ? path.join(this.files.dir, name) : name;
  }

  private report(problems: readonly JournalProblem[]): void {
    for (const p of problems) {
      const key = `${p.file}:${p.line}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.problems.push(p);
    }
  }
}

/** 1-based number of the line starting at `offset` (only computed for a problem). */
function lineNumber(buffer: Buffer, offset: number): number {
  let n = 1;
  for (let i = buffer.indexOf(NEWLINE); i >= 0 && i < offset; i = buffer.indexOf(NEWLINE, i + 1)) n += 1;
  return n;
}

/** The bounded lookup over a file journal; undefined for the no-op journal (or one without a folder). */
export function lookupOf(journal: Journal): JournalLookup | undefined {
  return journal.enabled && journal.dir !== undefined ? new JournalLookup(dayFilesOf(journal.dir)) : undefined;
}
