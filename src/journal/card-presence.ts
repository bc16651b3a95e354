import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { openBoardRead } from '../vault/board-file.js';
import { JOURNAL_DAY_MAX_BYTES } from './journal.js';

/**
 * Which cards each journal day file names, kept for the life of the process and grown only by
 * the bytes appended since it last looked. A lookup of a card that a day file never names skips
 * that file without reading it.
 *
 * Why: a card with no event in the window (every card dropped into pending/ and claimed for the
 * first time) made `latestFor` read and search every day file of the 92-day window, once per
 * claim: a few milliseconds on a fresh board, a hundred on a busy one, on the path from a card's
 * drop to its worker's start. Now the window is read once per process (a tick's first miss, a
 * watch's first round) and then only what was appended: day files are append-only.
 *
 * Safe with many writers (workers' verbs append without the round lock) because nothing is
 * written: this is each process's own memory of files it reads. A file that shrank or was
 * replaced (another inode) is read again from its start. The names are the `"card":` values as
 * JSON strings, exactly what the lookups search for; a name seen in a line still being appended
 * is counted at once (a false "present" only costs a read) and the line is read again, whole,
 * next time.
 */
/** A card's field as JSON.stringify writes an event. */
export const CARD_KEY = Buffer.from('"card":"', 'utf8');
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** How much of a file's new bytes is read at once. */
const CHUNK = 4 * 1024 * 1024;

interface FileCards {
  readonly dev: number;
  readonly ino: number;
  /** Bytes before this offset end with a newline and are counted. */
  scannedTo: number;
  readonly tokens: Set<string>;
  /** The file's first bytes as counted: a file emptied and written again in place starts otherwise (event ids are unique). */
  head: Buffer;
}

const HEAD_BYTES = 128;

const byFolder = new Map<string, Map<string, FileCards>>();

/**
 * The `"card":` values (as JSON strings) the day file `name` of the journal folder `dir` holds,
 * or undefined when it cannot tell (missing, no regular file, unreadable: the caller reads it
 * as before, and reports what is wrong with it).
 */
export async function cardsInDayFile(dir: string, name: string): Promise<ReadonlySet<string> | undefined> {
  let files = byFolder.get(dir);
  if (!files) byFolder.set(dir, (files = new Map()));
  let handle: FileHandle;
  try {
    handle = await openBoardRead(path.join(dir, name));
  } catch {
    files.delete(name);
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > JOURNAL_DAY_MAX_BYTES) {
      files.delete(name);
      return undefined;
    }
    let known = files.get(name);
    if (known && (known.dev !== stat.dev || known.ino !== stat.ino || stat.size < known.scannedTo || !(await startsWith(handle, known.head)))) known = undefined;
    if (!known) {
      known = { dev: stat.dev, ino: stat.ino, scannedTo: 0, tokens: new Set(), head: Buffer.alloc(0) };
      files.set(name, known);
    }
    while (known.scannedTo < stat.size) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, stat.size - known.scannedTo));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, known.scannedTo);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      if (known.scannedTo === 0) known.head = Buffer.from(bytes.subarray(0, HEAD_BYTES));
      collectCards(bytes, known.tokens);
      const lastNewline = bytes.lastIndexOf(NEWLINE);
      // An unfinished last line is read again next time (its name is already counted).
      if (lastNewline < 0) break;
      known.scannedTo += lastNewline + 1;
      if (lastNewline + 1 < bytesRead && bytesRead < buffer.length) break;
    }
    return known.tokens;
  } catch {
    files.delete(name);
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function startsWith(handle: FileHandle, head: Buffer): Promise<boolean> {
  if (head.length === 0) return true;
  const buffer = Buffer.allocUnsafe(head.length);
  const { bytesRead } = await handle.read(buffer, 0, head.length, 0);
  return bytesRead === head.length && buffer.equals(head);
}

/** Every `"card":"…"` value in `bytes`, as its JSON string (quotes included). */
function collectCards(bytes: Buffer, into: Set<string>): void {
  let from = 0;
  for (;;) {
    const hit = bytes.indexOf(CARD_KEY, from);
    if (hit < 0) return;
    const open = hit + CARD_KEY.length - 1;
    const close = closingQuote(bytes, open + 1);
    if (close < 0) {
      from = open + 1;
      continue;
    }
    into.add(bytes.toString('utf8', open, close + 1));
    from = close + 1;
  }
}

/** The index of the quote closing a JSON string whose content starts at `from`; -1 if none on its line. */
export function closingQuote(buffer: Buffer, from: number): number {
  for (let i = from; i < buffer.length; i += 1) {
    const b = buffer[i];
    if (b === QUOTE) return i;
    if (b === BACKSLASH) i += 1;
    else if (b === NEWLINE) return -1;
  }
  return -1;
}
