import fs from 'node:fs/promises';
import type { z } from 'zod';
import { FrontMatterError, parseFrontMatter } from '../format/frontmatter.js';
import { zodProblems } from '../errors.js';
import type { Parsed } from '../core/types.js';

/**
 * Read one Markdown file with front matter and validate it. Never throws for a bad file: an
 * unreadable card is a declared problem (file, field, reason), not a crash and not a skip.
 */
export async function readParsed<S extends z.ZodType>(absolute: string, shown: string, schema: S): Promise<Parsed<z.output<S>>> {
  let text: string;
  try {
    const stat = await fs.lstat(absolute);
    if (stat.isSymbolicLink()) return problem(shown, 'a symbolic link, not a file: the board does not follow links');
    if (!stat.isFile()) return problem(shown, 'not a regular file');
    text = await fs.readFile(absolute, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return problem(shown, code === 'ENOENT' ? 'vanished while being read' : `unreadable: ${code ?? (error as Error).message}`);
  }
  return parseText(text, shown, schema);
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
