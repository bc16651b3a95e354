import type { z } from 'zod';
import { FrontMatterError, parseFrontMatter } from '../format/frontmatter.js';
import { zodProblems } from '../errors.js';
import type { Parsed } from '../core/types.js';
import { readCardText, type Unreadable } from './card-bytes.js';
import { cardSchema } from '../schema/card.js';
import { cardFastPath } from '../schema/card-fast-path.js';
import { profileSchema } from '../schema/profile.js';
import { profileFastPath } from '../schema/profile-fast-path.js';

/**
 * Read one Markdown file with front matter and validate it. Never throws for a bad file: an
 * unreadable card is a declared problem (file, field, reason), not a crash and not a skip.
 */
export async function readParsed<S extends z.ZodType>(absolute: string, shown: string, schema: S, hint: ReadHint = {}): Promise<Parsed<z.output<S>>> {
  return parseRead(readCardText(absolute, hint.seenAsFile === true), shown, schema);
}

/** A file's text as read (card-bytes.ts), parsed and validated; a failed read as its declared problem. */
export function parseRead<S extends z.ZodType>(read: string | Unreadable, shown: string, schema: S): Parsed<z.output<S>> {
  return typeof read === 'string' ? parseText(read, shown, schema) : problem(shown, read.reason);
}

export interface ReadHint {
  /** The folder listing (its entry type) or an lstat just now said this is a regular file. */
  readonly seenAsFile?: boolean;
}

export function parseText<S extends z.ZodType>(text: string, shown: string, schema: S): Parsed<z.output<S>> {
  let data: Record<string, unknown>;
  try {
    data = parseFrontMatter(text).data;
  } catch (error) {
    const line = error instanceof FrontMatterError && error.line !== undefined ? `line ${error.line}` : undefined;
    return { ok: false, file: shown, problems: [{ file: shown, ...(line ? { field: line } : {}), reason: (error as Error).message }] };
  }
  // A card or worker profile zod would accept as it is skips zod (card-fast-path.ts,
  // profile-fast-path.ts); any other goes to zod.
  const fast = (schema as z.ZodType) === cardSchema ? cardFastPath(data) : (schema as z.ZodType) === profileSchema ? profileFastPath(data) : undefined;
  if (fast !== undefined) return { ok: true, file: shown, text, value: fast as z.output<S> };
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
