import { withoutControls } from './control.js';
import { parseFrontMatter, renderFrontMatter } from './frontmatter.js';

/**
 * The `## Record` section: a chronological log in the body. The board only ever appends to it.
 * Format (the standard's): a parent line with date and time, the actor and each milestone
 * indented beneath it.
 *
 *   - 2026-08-20 13:56
 *       - board: claimed for writer (harness local, model m).
 */

const RECORD_HEADING = /^##[ \t]+Record[ \t]*\r?$/m;

export function recordStamp(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}:${pad(now.getMinutes())}`;
}

export function renderRecordEntry(now: Date, actor: string, milestones: readonly string[], eol = '\n'): string {
  const lines = [`- ${recordStamp(now)}`, ...milestones.map((m, i) => `    - ${i === 0 ? `${oneLine(actor)}: ` : ''}${oneLine(m)}`)];
  return lines.join(eol) + eol;
}

/**
 * A milestone is one line: newlines in a reason would break the Record's shape. Its other control
 * characters are made visible: a raw NUL or ESC copied from a card's field would make the card
 * binary, or drive the terminal of whoever reads it (see control.ts).
 */
function oneLine(text: string): string {
  return withoutControls(text.replace(/\s*[\r\n]+\s*/g, ' ').trim()).replace(/\t/g, ' ');
}

/**
 * Append an entry at the end of the `## Record` section (creating the section at the end of the
 * body when it is missing). Everything before the insertion point stays byte for byte.
 */
export function appendRecord(text: string, now: Date, actor: string, milestones: readonly string[]): string {
  const doc = parseFrontMatter(text);
  const entry = renderRecordEntry(now, actor, milestones, doc.eol);
  const body = doc.body;
  const heading = RECORD_HEADING.exec(body);
  if (!heading) {
    let prefix = body;
    if (prefix.length > 0 && !prefix.endsWith('\n')) prefix += doc.eol;
    const gap = prefix.length === 0 || prefix.endsWith(doc.eol + doc.eol) ? '' : doc.eol;
    return renderFrontMatter({ ...doc, body: `${prefix}${gap}## Record${doc.eol}${doc.eol}${entry}` });
  }
  // The section ends at the next heading of level 1 or 2, or at the end of the body.
  const afterHeading = heading.index + heading[0].length;
  const next = /^#{1,2}[ \t]+\S/m.exec(body.slice(afterHeading));
  const sectionEnd = next ? afterHeading + next.index : body.length;
  // Insert right after the line break that ends the section's last non-blank line: every byte
  // before it stays as it was, and the blank lines that separate it from what follows stay after.
  const lastChar = body.slice(0, sectionEnd).search(/\S\s*$/);
  const empty = lastChar < afterHeading;
  const lineBreak = body.indexOf('\n', lastChar);
  const insertAt = lineBreak === -1 || lineBreak >= sectionEnd ? sectionEnd : lineBreak + 1;
  let prefix = body.slice(0, insertAt);
  if (!prefix.endsWith('\n')) prefix += doc.eol;
  const lead = empty ? doc.eol : '';
  return renderFrontMatter({ ...doc, body: prefix + lead + entry + body.slice(insertAt) });
}
