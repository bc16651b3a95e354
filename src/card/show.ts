import { parseFrontMatter } from '../format/frontmatter.js';
import type { Card } from '../schema/card.js';
import type { CardContext } from './context.js';
import { findCard } from './find-card.js';

/** One dated entry of a card's `## Record`: its stamp and the lines indented beneath it. */
export interface RecordEntry {
  readonly time: string;
  readonly lines: readonly string[];
}

/** What `board card show` prints: enough for a worker in any language never to parse YAML itself. */
export interface ShownCard {
  /** The card's file name. */
  readonly card: string;
  readonly state: string;
  /** `pending`, `in-progress`, `done` or `archive/YYYY-MM`. */
  readonly folder: string;
  /** Absolute path. */
  readonly file: string;
  /** The front matter as the board reads it (missing `paths` and `attempts` filled in; extra fields kept). */
  readonly fields: Card;
  /** The body after the front matter, as written. */
  readonly body: string;
  readonly record: readonly RecordEntry[];
}

const HEADING = /^##[ \t]+Record[ \t]*$/;
const STAMP = /^- (\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?)\s*$/;

/** The `## Record` section's entries, in order; lines that fit no entry are kept under the previous one. */
export function parseRecord(body: string): RecordEntry[] {
  const lines = body.split(/\r?\n/);
  const start = lines.findIndex((l) => HEADING.test(l));
  if (start === -1) return [];
  const entries: { time: string; lines: string[] }[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,2}[ \t]+\S/.test(line)) break;
    const stamp = STAMP.exec(line);
    if (stamp) entries.push({ time: stamp[1]!, lines: [] });
    else if (line.trim() !== '' && entries.length > 0) entries[entries.length - 1]!.lines.push(line.trim().replace(/^- /, ''));
  }
  return entries;
}

/** `board card show CARD`: the card wherever it is now, read, never written. */
export async function showCard(ctx: CardContext, ref: string): Promise<ShownCard> {
  const found = await findCard(ctx.layout, ref, ctx.cwd);
  const body = parseFrontMatter(found.text).body;
  return { card: found.name, state: found.state, folder: found.folder, file: found.file, fields: found.card, body, record: parseRecord(body) };
}
