import fs from 'node:fs/promises';
import path from 'node:path';
import { localDate } from '../core/time.js';
import { journalEventSchema, materialize, toLine, type JournalEvent, type NewEvent } from './event.js';
import { BoardFileError, openBoardAppend, readBoardText } from '../vault/board-file.js';
import { folderProblem } from '../vault/real-folders.js';

/**
 * The append-only journal: `<logs>/journal/YYYY-MM-DD.ndjson`, one file per local day of the
 * event's time, one event per line, never rewritten. Appends are a single `write(2)` of one line
 * under PIPE_BUF on a descriptor opened O_APPEND, so any number of processes (ticks, watchers,
 * workers running `board card` verbs) may append at once without losing or interleaving lines.
 * A day file is only ever a regular file: a link or a FIFO planted at its name is refused (never
 * written through, never waited on) and said, on appends and on reads (src/vault/board-file.ts).
 */

export interface JournalProblem {
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
  /** True for an unterminated last line: what a crash in the middle of an append leaves. */
  readonly torn: boolean;
}

export interface JournalRead {
  readonly events: JournalEvent[];
  readonly problems: JournalProblem[];
}

export interface ReadOptions {
  /** Only events at or after this time (whole day files before its date are not even opened). */
  readonly since?: Date;
  readonly card?: string;
}

export interface Journal {
  /** False for the no-op journal (dry-run, a verb that found no logs folder). */
  readonly enabled: boolean;
  /** The `journal/` folder, when there is one. */
  readonly dir?: string;
  /**
   * Append one event and return it as stored (with its id). Never throws: a failed append is
   * reported to the journal's `onError` (the caller's work is not undone by a full disk).
   */
  append(event: NewEvent): Promise<JournalEvent>;
  /**
   * Append several events, in order: each line still one `write(2)` on an O_APPEND descriptor,
   * but each day file opened once for the lot (a round journaling a burst's verdicts would
   * otherwise pay an open and a close per event). Never throws, like `append`.
   */
  appendMany(events: readonly NewEvent[]): Promise<JournalEvent[]>;
  /** Every stored event, oldest first, with the lines that could not be read. */
  read(options?: ReadOptions): Promise<JournalRead>;
}

export interface OpenOptions {
  readonly clock?: () => Date;
  readonly onError?: (error: Error, event: JournalEvent) => void;
}

/** A day file the board reads whole; far above a busy day's (~400 bytes an event). */
export const JOURNAL_DAY_MAX_BYTES = 1024 * 1024 * 1024;

export function journalDir(logsDir: string): string {
  return path.join(logsDir, 'journal');
}

export function dayFile(dir: string, at: Date): string {
  return path.join(dir, `${localDate(at)}.ndjson`);
}

const defaultOnError = (error: Error, event: JournalEvent) =>
  void process.stderr.write(`board: could not journal ${event.kind} ${event.card ?? ''} (${event.id}): ${error.message}\n`);

/** A journal that records nothing: dry-run, and callers that cannot find a logs folder. */
export function noopJournal(clock: () => Date = () => new Date()): Journal {
  return {
    enabled: false,
    async append(event) {
      return materialize(event, clock);
    },
    async appendMany(events) {
      return events.map((e) => materialize(e, clock));
    },
    async read() {
      return { events: [], problems: [] };
    },
  };
}

/** At most this much (in UTF-16 units, about bytes) of lines in one write of `appendMany`. */
const APPEND_BATCH_BYTES = 64 * 1024;

/** The journal in a dispatcher's logs folder (config `logs`). Nothing is created until the first append. */
export function openJournal(logsDir: string, options: OpenOptions = {}): Journal {
  const dir = journalDir(logsDir);
  const clock = options.clock ?? (() => new Date());
  const onError = options.onError ?? defaultOnError;
  let made = false;
  return {
    enabled: true,
    dir,
    async append(input) {
      const event = materialize(input, clock);
      try {
        if (!made) {
          await fs.mkdir(dir, { recursive: true });
          // A linked journal folder would take every day file elsewhere.
          const problem = await folderProblem(dir);
          if (problem) throw new Error(problem);
          made = true;
        }
        await appendLine(dayFile(dir, new Date(event.at)), toLine(event));
      } catch (error) {
        onError(error as Error, event);
      }
      return event;
    },
    async appendMany(inputs) {
      const events = inputs.map((input) => materialize(input, clock));
      let i = 0;
      try {
        if (!made && events.length > 0) {
          await fs.mkdir(dir, { recursive: true });
          const problem = await folderProblem(dir);
          if (problem) throw new Error(problem);
          made = true;
        }
        while (i < events.length) {
          const file = dayFile(dir, new Date(events[i]!.at));
          // Never through a link or a FIFO planted at the day file's name, as `append`.
          const handle = await openBoardAppend(file);
          try {
            // Whole lines, many to a write (O_APPEND keeps each write whole among other writers'):
            // one write per line was one network round trip per line on a shared mount.
            while (i < events.length && dayFile(dir, new Date(events[i]!.at)) === file) {
              const lines: string[] = [];
              let bytes = 0;
              for (; i < events.length && bytes < APPEND_BATCH_BYTES && dayFile(dir, new Date(events[i]!.at)) === file; i += 1) {
                const line = toLine(events[i]!);
                lines.push(line);
                bytes += line.length;
              }
              const buffer = Buffer.from(lines.join(''), 'utf8');
              const { bytesWritten } = await handle.write(buffer, 0, buffer.length, null);
              if (bytesWritten !== buffer.length) {
                i -= lines.length;
                throw new Error(`short write to ${file}: ${bytesWritten} of ${buffer.length} bytes`);
              }
            }
          } finally {
            await handle.close();
          }
        }
      } catch (error) {
        // The event being written and every one after it are reported; those before are stored.
        for (; i < events.length; i += 1) onError(error as Error, events[i]!);
      }
      return events;
    },
    read: (readOptions) => readJournalDir(dir, readOptions),
  };
}

/**
 * One line, one `write(2)`, O_APPEND: atomic with respect to every other appender. Opened without
 * following a link and without blocking, and refused unless a regular file (BoardFileError).
 */
export async function appendLine(file: string, line: string): Promise<void> {
  const buffer = Buffer.from(line, 'utf8');
  const handle = await openBoardAppend(file);
  try {
    const { bytesWritten } = await handle.write(buffer, 0, buffer.length, null);
    if (bytesWritten !== buffer.length) throw new Error(`short write to ${file}: ${bytesWritten} of ${buffer.length} bytes`);
  } finally {
    await handle.close();
  }
}

/** Read every day file in a journal folder, oldest first; a missing folder is an empty journal. */
export async function readJournalDir(dir: string, options: ReadOptions = {}): Promise<JournalRead> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => /^\d{4}-\d{2}-\d{2}\.ndjson$/.test(n)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], problems: [] };
    throw error;
  }
  // A day file holds events whose local date is its name: a whole day before `since` is skipped.
  if (options.since) {
    const first = localDate(options.since);
    names = names.filter((n) => n.slice(0, 10) >= first);
  }
  const events: JournalEvent[] = [];
  const problems: JournalProblem[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = await readBoardText(file, { maxBytes: JOURNAL_DAY_MAX_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      // A link, a FIFO or a folder at a day file's name: skipped and said, like an unreadable line.
      if (error instanceof BoardFileError) {
        problems.push({ file, line: 0, reason: error.message, torn: false });
        continue;
      }
      throw error;
    }
    const parsed = parseJournalText(text, file);
    events.push(...parsed.events);
    problems.push(...parsed.problems);
  }
  const since = options.since?.getTime();
  const kept = events.filter((e) => (since === undefined || Date.parse(e.at) >= since) && (options.card === undefined || e.card === options.card));
  // Files are per day and lines within a file are in append order; a stable sort by time merges hosts' clocks sanely.
  kept.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { events: kept, problems };
}

/**
 * Parse one day file. A line that does not parse is reported, never fatal. When a crash tore a
 * line and a later append continued on the same line, the event after the fragment is recovered.
 */
export function parseJournalText(text: string, file: string): JournalRead {
  const events: JournalEvent[] = [];
  const problems: JournalProblem[] = [];
  const lines = text.split('\n');
  const terminated = text.endsWith('\n');
  if (terminated) lines.pop();
  lines.forEach((line, i) => {
    const parsed = parseJournalLine(line, file, i + 1, i === lines.length - 1 && !terminated);
    if (parsed.event) events.push(parsed.event);
    if (parsed.problem) problems.push(parsed.problem);
  });
  return { events, problems };
}

/**
 * One line of a day file (without its newline): its event, and what was wrong with it. A blank
 * line is neither. `unterminated` marks the file's last line when the file does not end in a newline.
 */
export function parseJournalLine(line: string, file: string, lineNumber: number, unterminated: boolean): { event?: JournalEvent; problem?: JournalProblem } {
  if (line.trim() === '') return {};
  const event = parseLine(line);
  if (event) return { event };
  const resumed = line.indexOf('{"id":', 1);
  const recovered = resumed > 0 ? parseLine(line.slice(resumed)) : undefined;
  if (recovered) {
    return { event: recovered, problem: { file, line: lineNumber, reason: `torn event fragment (${resumed} bytes) before a whole event: fragment skipped`, torn: true } };
  }
  return {
    problem: unterminated
      ? { file, line: lineNumber, reason: `torn last line (${Buffer.byteLength(line)} bytes, no newline): an append interrupted by a crash; skipped`, torn: true }
      : { file, line: lineNumber, reason: 'not a journal event: skipped', torn: false },
  };
}

function parseLine(line: string): JournalEvent | undefined {
  try {
    const parsed = journalEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
