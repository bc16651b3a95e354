import { isDeepStrictEqual } from 'node:util';
import yaml from 'js-yaml';
import { valueWithoutControls } from './control.js';
import { loadSimpleYaml } from './simple-yaml.js';

/**
 * Front matter as bytes, not as a re-dumped object. The board edits a card by replacing the
 * lines of one top-level key, so every line it did not mean to change stays byte for byte.
 * Parsing uses js-yaml's JSON_SCHEMA so dates stay strings and nothing is silently coerced.
 */

export interface FrontMatterDoc {
  /** Everything before the YAML (a BOM, if any) plus the opening `---` line. */
  readonly head: string;
  /** The YAML text between the fences, each line keeping its own ending. */
  readonly yamlText: string;
  /** The closing fence line with its ending. */
  readonly fence: string;
  readonly body: string;
  /** The file's line ending, reused for every line the board writes. */
  readonly eol: '\n' | '\r\n';
  readonly data: Record<string, unknown>;
}

export class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'FrontMatterError';
  }
}

const OPEN = /^(\uFEFF?)---[ \t]*(\r?\n)/;

/**
 * Front matter over this many bytes is declared unreadable: no card or profile needs it, and every
 * round would parse it again (CONTRACT "What the census reads").
 */
export const MAX_FRONT_MATTER_BYTES = 1024 * 1024;
/** Deeper nesting than this is refused: no card needs it, and recursive readers would overflow. */
export const MAX_YAML_DEPTH = 64;
const CLOSE = /^(---|\.\.\.)[ \t]*(\r?\n|$)/;

export function parseFrontMatter(text: string): FrontMatterDoc {
  if (text.includes('\0')) throw new FrontMatterError('the file holds NUL bytes: not a text card');
  const open = OPEN.exec(text);
  if (!open) throw new FrontMatterError('no front matter: the file must start with a line "---"', 1);
  const eol = open[2] === '\r\n' ? '\r\n' : '\n';
  const head = open[0];
  const start = head.length;
  let offset = start;
  let fence: string | undefined;
  let yamlText = '';
  // A UTF-8 byte is at most one UTF-16 unit: past this many units the front matter is surely over
  // the limit, so the search for its end stops there (a huge fenceless file costs no more).
  const scanLimit = start + MAX_FRONT_MATTER_BYTES + 1;
  while (offset < text.length) {
    const lineEnd = text.indexOf('\n', offset);
    const next = lineEnd === -1 ? text.length : lineEnd + 1;
    if (next > scanLimit) throw tooLarge();
    // Only a line starting like a fence is worth a look (one slice, not one per line).
    const first = text.charCodeAt(offset);
    if ((first === 45 || first === 46) && CLOSE.test(text.slice(offset, next))) {
      fence = text.slice(offset, next);
      yamlText = text.slice(start, offset);
      offset = next;
      break;
    }
    offset = next;
  }
  if (fence === undefined) throw new FrontMatterError('front matter is never closed by a line "---"');
  const data = loadYaml(yamlText);
  return { head, yamlText, fence, body: text.slice(offset), eol, data };
}

function tooLarge(): FrontMatterError {
  return new FrontMatterError(`front matter over ${MAX_FRONT_MATTER_BYTES / 1024 / 1024} MiB: too large to read (the board reads at most that much YAML per file)`);
}

/** Whether `text` holds more than MAX_FRONT_MATTER_BYTES of UTF-8 (counted only when it could). */
function overLimit(text: string): boolean {
  if (text.length > MAX_FRONT_MATTER_BYTES) return true;
  return text.length * 3 > MAX_FRONT_MATTER_BYTES && Buffer.byteLength(text, 'utf8') > MAX_FRONT_MATTER_BYTES;
}

export function loadYaml(yamlText: string): Record<string, unknown> {
  if (overLimit(yamlText)) throw tooLarge();
  // The common shape is read directly (js-yaml's answer, see simple-yaml.ts); the rest, errors
  // and their line numbers included, is js-yaml's.
  const simple = loadSimpleYaml(yamlText);
  if (simple !== undefined) return simple;
  let data: unknown;
  try {
    data = yaml.load(yamlText, { schema: yaml.JSON_SCHEMA });
  } catch (error) {
    const e = error as yaml.YAMLException;
    const line = e.mark ? e.mark.line + 2 : undefined; // +1 for 1-based, +1 for the opening fence
    throw new FrontMatterError(`invalid YAML: ${e.reason ?? e.message}`, line);
  }
  if (data === undefined || data === null) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new FrontMatterError('front matter must be a map of fields, not a list or a scalar');
  }
  checkExpansion(data, yamlText.length);
  return data as Record<string, unknown>;
}

/**
 * js-yaml shares one object per anchor, so parsing a "billion laughs" is cheap; whatever walks or
 * stringifies the result later (zod, an edit's check, JSON output) pays the expansion: gigabytes
 * from a few hundred bytes. So the parsed value is walked once here, iteratively and with a budget
 * proportional to the text: a value bigger than its own bytes could hold without aliases (with a
 * margin: a one-character null or key counts more than one unit) is refused, as is nesting deeper
 * than any card needs. The walk stops as soon as the budget is spent: its cost is bounded by the
 * text's length, whatever the aliases would expand to.
 */
function checkExpansion(data: object, textLength: number): void {
  let budget = 4 * textLength + 4096;
  const stack: { value: unknown; depth: number }[] = [{ value: data, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    budget -= 1;
    if (typeof value === 'string') budget -= value.length;
    else if (value !== null && typeof value === 'object') {
      if (depth > MAX_YAML_DEPTH) throw new FrontMatterError(`YAML nested deeper than ${MAX_YAML_DEPTH} levels: refused`);
      const entries = Array.isArray(value) ? value : Object.entries(value as Record<string, unknown>);
      budget -= entries.length;
      if (budget < 0) break;
      for (const entry of entries) {
        if (Array.isArray(value)) stack.push({ value: entry, depth: depth + 1 });
        else {
          const [key, child] = entry as [string, unknown];
          budget -= key.length;
          stack.push({ value: child, depth: depth + 1 });
        }
      }
    }
    if (budget < 0) break;
  }
  if (budget < 0) {
    throw new FrontMatterError('YAML aliases expand past what the front matter\'s own bytes could hold (a "billion laughs"): refused, not expanded');
  }
}

export function renderFrontMatter(doc: Pick<FrontMatterDoc, 'head' | 'yamlText' | 'fence' | 'body'> & { readonly eol?: string }): string {
  // A file may end right at its closing fence, with no line break: a body written after it must
  // start on a line of its own, or the fence would turn into `---## Record`.
  const fence = doc.body !== '' && !doc.fence.endsWith('\n') ? doc.fence + (doc.eol ?? '\n') : doc.fence;
  return doc.head + doc.yamlText + fence + doc.body;
}

interface KeyBlock {
  key: string;
  start: number; // first line index
  end: number; // one past the last line that belongs to the key
  /** Its value ends in a keep-chomped block scalar, which would own blank lines placed after it. */
  keepOpen: boolean;
}

// A plain key continues through `#` not preceded by a space and `:` not followed by one (YAML's
// rules: `x#y` and `a:b` are keys, `x #y` is a comment and `a: b` a value).
const PLAIN_KEY_REST = String.raw`(?:[^\s:]|:(?=\S)|[ \t]+(?=[^\s#:]))*`;
const TOP_KEY = new RegExp(
  String.raw`^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"\-?:,[\]{}&*!|>%@\`]${PLAIN_KEY_REST}|-[^\s:#]${PLAIN_KEY_REST}))[ \t]*:(?:[ \t]|\r?\n|$)`,
);

function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

function topLevelBlocks(lines: string[]): KeyBlock[] {
  const blocks: KeyBlock[] = [];
  let current: KeyBlock | undefined;
  let lastContent = -1;
  // A block scalar with "keep" chomping (`|+`, `>+`, `|2+` …), at any depth, owns the blank lines
  // that follow it: they are part of its value. -1 when no such scalar is open.
  let keepIndent = -1;
  const noteKeep = (line: string) => {
    if (KEEP_SCALAR.test(line)) keepIndent = /^[ \t]*/.exec(line)![0].length;
  };
  const close = () => {
    if (!current) return;
    current.end = lastContent + 1;
    current.keepOpen = keepIndent >= 0;
  };
  lines.forEach((line, index) => {
    const match = TOP_KEY.exec(line);
    if (match) {
      close();
      const key = match[1] !== undefined ? unescapeDoubleQuoted(match[1]) : match[2] !== undefined ? match[2].replace(/''/g, "'") : match[3]!.trim();
      current = { key, start: index, end: index + 1, keepOpen: false };
      blocks.push(current);
      lastContent = index;
      keepIndent = -1;
      noteKeep(line);
      return;
    }
    if (line.trim() === '') {
      if (keepIndent >= 0) lastContent = index;
      return;
    }
    const continues = /^[ \t]/.test(line) || /^-([ \t]|\r?\n|$)/.test(line);
    if (!continues) {
      // A comment at column 0 ends any block scalar (but not the key: list items may follow it).
      keepIndent = -1;
      return;
    }
    lastContent = index;
    if (/^[ \t]*/.exec(line)![0].length <= keepIndent) keepIndent = -1;
    noteKeep(line);
  });
  close();
  return blocks;
}

/** A line whose value is a block scalar with keep chomping. */
const KEEP_SCALAR = /(?:^|[\s:-])[|>](?:\+[1-9]?|[1-9]\+)[ \t]*(?:#.*)?\r?\n?$/;

/** A double-quoted key's text as YAML reads it (`"a\"b"` is the key `a"b`). */
function unescapeDoubleQuoted(raw: string): string {
  try {
    const value = yaml.load(`"${raw}"`, { schema: yaml.JSON_SCHEMA });
    return typeof value === 'string' ? value : raw;
  } catch {
    return raw;
  }
}

/** One `key: value` entry rendered as YAML lines ending in `eol`. */
export function renderEntry(key: string, value: unknown, eol: string): string {
  // DEFAULT_SCHEMA when dumping: it quotes strings that other YAML readers would take for dates
  // or booleans, so what the board writes stays a string for every reader.
  // No control characters but tab and newline in what the board writes (see control.ts).
  const dumped = yaml.dump({ [key]: valueWithoutControls(value) }, { lineWidth: -1, noRefs: true });
  return dumped.replace(/\n/g, eol);
}

/**
 * Set (or, with `undefined`, remove) top-level fields, touching only their lines. New keys go
 * after the last existing one. The result is re-parsed and checked: every other field must be
 * deep-equal to before and every set field equal to what was asked, or nothing is returned.
 */
export function setFields(text: string, asked: Record<string, unknown>): string {
  // No control characters but tab and newline in what the board writes (see control.ts): the
  // values are cleaned first, and the check below holds the result to the cleaned values.
  const updates = valueWithoutControls(asked);
  const doc = parseFrontMatter(text);
  const lines = splitLines(doc.yamlText);
  const blocks = topLevelBlocks(lines);
  const replacements = new Map<number, { end: number; text: string }>();
  const appended: string[] = [];
  for (const [key, value] of Object.entries(updates)) {
    const matching = blocks.filter((b) => b.key === key);
    if (matching.length > 1) throw new FrontMatterError(`field "${key}" appears more than once`);
    const rendered = value === undefined ? '' : renderEntry(key, value, doc.eol);
    const block = matching[0];
    if (block) replacements.set(block.start, { end: block.end, text: rendered });
    else if (value !== undefined) appended.push(rendered);
  }
  // New keys go after the last existing one (the end of the last key's lines, or the last content
  // line), so trailing comments or blank lines stay trailing.
  const insertAt = Math.max(blocks.length > 0 ? blocks[blocks.length - 1]!.end : 0, lastContentLine(lines) + 1);
  let yamlOut = '';
  // Blank lines right after a keep-chomped block scalar (`|+`) belong to its value. So an edit must
  // never leave original blank lines right after one: `keepOpen` says whether the output so far
  // ends in such a scalar.
  const keepEnds = new Set(blocks.filter((b) => b.keepOpen).map((b) => b.end));
  let keepOpen = false;
  // Emits a rendered entry (or nothing, for a removal) whose original successor is line `next`;
  // returns the next original line to copy. Blank lines that would be swallowed go before a new
  // keep-chomped entry, or are dropped when the output already ends in one.
  const emit = (rendered: string, next: number): number => {
    const endsKeep = /(?:^|\n)[ \t]*\r?\n$/.test(rendered);
    let after = next;
    if (endsKeep || (rendered === '' && keepOpen)) {
      while (after < lines.length && lines[after]!.trim() === '' && !replacements.has(after)) after += 1;
    }
    if (!keepOpen) for (let k = next; k < after; k += 1) yamlOut += lines[k];
    if (rendered !== '') {
      if (yamlOut.length > 0 && !yamlOut.endsWith('\n')) yamlOut += doc.eol;
      yamlOut += rendered;
      keepOpen = endsKeep;
    }
    return after;
  };
  let appendedDone = appended.length === 0;
  for (let i = 0; i < lines.length; ) {
    if (!appendedDone && i >= insertAt) {
      appendedDone = true;
      i = emit(appended.join(''), i);
      continue;
    }
    const replacement = replacements.get(i);
    if (replacement) {
      i = emit(replacement.text, replacement.end);
    } else {
      const line = lines[i]!;
      yamlOut += line;
      i += 1;
      if (keepEnds.has(i)) keepOpen = true;
      else if (line.trim() !== '') keepOpen = false;
    }
  }
  if (!appendedDone) emit(appended.join(''), lines.length);
  const result = renderFrontMatter({ ...doc, yamlText: yamlOut });
  verifyEdit(doc.data, result, updates);
  return result;
}

/** Index of the last line that is neither blank nor a comment at column 0, or -1. */
function lastContentLine(lines: readonly string[]): number {
  let last = -1;
  lines.forEach((line, index) => {
    if (line.trim() !== '' && !line.startsWith('#')) last = index;
  });
  return last;
}

function verifyEdit(before: Record<string, unknown>, result: string, updates: Record<string, unknown>): void {
  const after = parseFrontMatter(result).data;
  const expected: Record<string, unknown> = { ...before };
  for (const [key, value] of Object.entries(updates)) {
    if (value === undefined) delete expected[key];
    else expected[key] = value;
  }
  // Both sides through JSON, so -0 and 0 (which YAML cannot tell apart either) compare equal.
  const expectedJson = JSON.parse(JSON.stringify(expected)) as unknown;
  const afterJson = JSON.parse(JSON.stringify(after)) as unknown;
  if (!isDeepStrictEqual(afterJson, expectedJson)) {
    throw new FrontMatterError(
      `editing ${Object.keys(updates).join(', ')} would change other fields; the card was not rewritten`,
    );
  }
  // Order of untouched keys is part of integrity too.
  const kept = Object.keys(before).filter((k) => !(k in updates));
  const afterOrder = Object.keys(after).filter((k) => kept.includes(k));
  if (!isDeepStrictEqual(kept, afterOrder)) {
    throw new FrontMatterError('editing the card would reorder its fields; the card was not rewritten');
  }
}

/** Replace the body (used only by Record appends, which keep the old body as a prefix). */
export function withBody(text: string, body: string): string {
  const doc = parseFrontMatter(text);
  return renderFrontMatter({ ...doc, body });
}
