import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { FrontMatterError, parseFrontMatter } from '../format/frontmatter.js';
import { zodProblems } from '../errors.js';
import type { Parsed } from '../core/types.js';

/**
 * Read one Markdown file with front matter and validate it. Never throws for a bad file: an
 * unreadable card is a declared problem (file, field, reason), not a crash and not a skip.
 */
export async function readParsed<S extends z.ZodType>(absolute: string, shown: string, schema: S, hint: ReadHint = {}): Promise<Parsed<z.output<S>>> {
  const read = hint.seenAsFile ? readSeenFile(absolute) : readRegularFile(absolute);
  return typeof read === 'string' ? parseText(read, shown, schema) : problem(shown, read.reason);
}

export interface ReadHint {
  /** The folder listing (its entry type) or an lstat just now said this is a regular file. */
  readonly seenAsFile?: boolean;
}

/** Never follow a link, never block on a FIFO. */
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

function unreadable(error: unknown): { reason: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') return { reason: 'a symbolic link, not a file: the board does not follow links' };
  if (code === 'EISDIR') return { reason: 'not a regular file' };
  return { reason: code === 'ENOENT' ? 'vanished while being read' : `unreadable: ${code ?? (error as Error).message}` };
}

/**
 * A file already seen as a regular file, read in one native call (open, read, close): about 40%
 * cheaper than the open/fstat/read/close below, which a census pays for every card every round.
 * The same flags hold for whatever replaced it since it was seen: a link fails (ELOOP), a folder
 * fails (EISDIR), a FIFO reads as empty (declared: no front matter). Only a device node put there
 * in between, which takes root, would be read as one.
 */
function readSeenFile(absolute: string): string | { reason: string } {
  if (onNetworkMount(absolute)) return readRegularFile(absolute);
  try {
    // Node's "File system flags": a flag may also be a number, as open(2) takes it; @types/node
    // types `flag` as a string only.
    return fs.readFileSync(absolute, { encoding: 'utf8', flag: READ_FLAGS as unknown as string });
  } catch (error) {
    return unreadable(error);
  }
}

/** statfs(2) magic numbers of the network filesystems a shared board sits on. */
const NETWORK_FS = new Set([
  0x65735546, // FUSE (sshfs, rclone, s3fs …)
  0x6969, // NFS
  0x517b, // SMB
  0xfe534d42, // SMB2
  0xff534d42, // CIFS
]);
const networkFolders = new Map<string, boolean>();

/** Whether the file's folder is on a network filesystem (asked once per folder and process). */
function onNetworkMount(absolute: string): boolean {
  const dir = path.dirname(absolute);
  let network = networkFolders.get(dir);
  if (network === undefined) {
    try {
      network = NETWORK_FS.has(fs.statfsSync(dir).type);
    } catch {
      network = false;
    }
    networkFolders.set(dir, network);
  }
  return network;
}

/**
 * A card's bytes with one open (never following a link, never blocking on a FIFO), one fstat and
 * one read of the size it gave, as Node's own `readFileSync` of a path does (and the census's
 * floor). Used where the listing did not type the entry, and on a network mount for every card:
 * the one-call read above reads until a read returns nothing, and with attribute caching off (as
 * a shared board must run: several hosts write it) every read reaching past the size the kernel
 * knows asks the server for the file's attributes again, one more round trip per card than the
 * floor, every round. A file that grew since its fstat is read up to that size: a card is
 * replaced by a rename, never grown in place, and the next round reads the new one.
 */
function readRegularFile(absolute: string): string | { reason: string } {
  let fd: number;
  try {
    fd = fs.openSync(absolute, READ_FLAGS);
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { reason: 'not a regular file' };
    // An empty (or unsized) file is read to its end.
    if (stat.size === 0) return fs.readFileSync(fd, 'utf8');
    const buffer = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.toString('utf8', 0, filled);
  } catch (error) {
    return { reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
}

export function parseText<S extends z.ZodType>(text: string, shown: string, schema: S): Parsed<z.output<S>> {
  let data: Record<string, unknown>;
  try {
    data = parseFrontMatter(text).data;
  } catch (error) {
    const line = error instanceof FrontMatterError && error.line !== undefined ? `line ${error.line}` : undefined;
    return { ok: false, file: shown, problems: [{ file: shown, ...(line ? { field: line } : {}), reason: (error as Error).message }] };
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) return { ok: false, file: shown, problems: zodProblems(shown, parsed.error, { text }) };
  return { ok: true, file: shown, text, value: parsed.data };
}

function problem(file: string, reason: string): Parsed<never> {
  return { ok: false, file, problems: [{ file, reason }] };
}

/**
 * The census reads and parses synchronously (the cheapest way, see above), so without a pause
 * timers and signal handlers would wait for the whole census: the round lock's refresh among
 * them, which another tick would then take for a stale lock. Every this-many milliseconds of
 * uninterrupted work the loop lets the event loop run once.
 */
const YIELD_EVERY_MS = 50;

/** Run `fn` over `items` with at most `limit` in flight, keeping order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let since = performance.now();
  // One pause shared by every worker: separate ones would all be served in one pass of the event
  // loop, back to back, with no timer in between.
  let pause: Promise<void> | undefined;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      // Checked before each item too: the workers' first items all start synchronously.
      if (performance.now() - since > YIELD_EVERY_MS) {
        pause ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            pause = undefined;
            since = performance.now();
            resolve();
          }),
        );
        await pause;
        continue;
      }
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}
