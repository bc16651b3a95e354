import fs from 'node:fs';
import type { z } from 'zod';
import { FrontMatterError, parseFrontMatter } from '../format/frontmatter.js';
import { zodProblems } from '../errors.js';
import type { Parsed } from '../core/types.js';

/**
 * Read one Markdown file with front matter and validate it. Never throws for a bad file: an
 * unreadable card is a declared problem (file, field, reason), not a crash and not a skip.
 */
export async function readParsed<S extends z.ZodType>(absolute: string, shown: string, schema: S): Promise<Parsed<z.output<S>>> {
  const read = readRegularFile(absolute);
  return typeof read === 'string' ? parseText(read, shown, schema) : problem(shown, read.reason);
}

/**
 * A card's bytes with one open (never following a link, never blocking on a FIFO), one fstat and
 * the reads: the census does this for every card every round, so it is done synchronously, the
 * cheapest way Node has (a 10k-card census is a few hundred milliseconds of reads either way).
 */
function readRegularFile(absolute: string): string | { reason: string } {
  let fd: number;
  try {
    fd = fs.openSync(absolute, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') return { reason: 'a symbolic link, not a file: the board does not follow links' };
    return { reason: code === 'ENOENT' ? 'vanished while being read' : `unreadable: ${code ?? (error as Error).message}` };
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return { reason: 'not a regular file' };
    return fs.readFileSync(fd, 'utf8');
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
  if (!parsed.success) return { ok: false, file: shown, problems: zodProblems(shown, parsed.error) };
  return { ok: true, file: shown, text, value: parsed.data };
}

function problem(file: string, reason: string): Parsed<never> {
  return { ok: false, file, problems: [{ file, reason }] };
}

/** Run `fn` over `items` with at most `limit` in flight, keeping order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}
