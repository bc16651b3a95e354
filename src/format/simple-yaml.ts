import yaml from 'js-yaml';

/**
 * A fast path for the YAML that cards and profiles almost always hold: top-level `key: scalar`
 * lines, flow lists of plain words (`handles: [a, b]`), and one level of nested map or list
 * (`inputs:` / `  source: notes/x.md`). Every round parses every card's front matter, and js-yaml
 * spends most of a census's parse time on set-up per document; this reads the common shape
 * directly and answers `undefined` for anything else (quotes with escapes, comments after a
 * value, anchors, block scalars, deeper nesting, tabs, CR, non-ASCII, duplicate keys …), which
 * then goes to js-yaml as before.
 *
 * Its answer is js-yaml's own, by construction where it can be: plain scalars (and keys) are
 * resolved by JSON_SCHEMA's implicit types themselves, in their order, so `True`, `~`, `0x1F` or
 * `07:30` mean exactly what they mean to js-yaml. test/format/simple-yaml.test.ts holds it to
 * js-yaml on generated documents.
 */

/**
 * The list js-yaml itself tries, in order, on a plain scalar under JSON_SCHEMA (null, bool, int,
 * float). `compiledImplicit` is not in @types/js-yaml; should a js-yaml release drop it, the fast
 * path turns itself off rather than guess.
 */
const IMPLICIT: readonly yaml.Type[] | undefined = (() => {
  const list = (yaml.JSON_SCHEMA as unknown as { compiledImplicit?: unknown }).compiledImplicit;
  return Array.isArray(list) && list.length > 0 ? (list as yaml.Type[]) : undefined;
})();

/** Printable ASCII and newlines only; everything else is js-yaml's to judge. */
const SIMPLE_TEXT = /^[\x20-\x7e\n]*$/;
const NESTED_KEY_LINE = /^( +)([A-Za-z_][A-Za-z0-9_-]{0,99}):(?: +(.*))?$/;
const NESTED_ITEM_LINE = /^( +)- +(.+)$/;
/** A plain scalar may not start with an indicator (YAML 1.2 §7.3.3, kept strict: `-` and `?` too). */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Inside `[...]`, items are plain words: no quotes, nesting, comments or `:`. */
const FLOW_ITEM_FORBIDDEN = /["'[\]{}#:]/;

type Scalar = null | boolean | number | string;
type Value = Scalar | Scalar[] | Record<string, Scalar> | Record<string, never>;

/** Front matter YAML as js-yaml's JSON_SCHEMA reads it, or undefined when it is not the simple shape. */
export function loadSimpleYaml(text: string): Record<string, unknown> | undefined {
  if (IMPLICIT === undefined || !SIMPLE_TEXT.test(text)) return undefined;
  const lines = text.split('\n');
  const out: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    i += 1;
    if (isSkippable(line)) continue;
    const colon = keyLineColon(line);
    if (colon < 0) return undefined;
    const key = keyOf(line.slice(0, colon));
    if (key === undefined || Object.hasOwn(out, key)) return undefined;
    const rest = line.slice(colon + 1).trim();
    if (rest !== '') {
      const value = blockValue(rest);
      if (value === undefined) return undefined;
      out[key] = value;
      // A continuation line (a plain scalar folded over lines) is not the simple shape.
      if (i < lines.length && lines[i]!.startsWith(' ') && !isSkippable(lines[i]!)) return undefined;
      continue;
    }
    const nested = nestedBlock(lines, i);
    if (nested === undefined) return undefined;
    out[key] = nested.value;
    i = nested.next;
  }
  return out;
}

/**
 * Where `key:` ends in a top-level line `key: value` or `key:` (the key a plain word of letters,
 * digits, `_` and `-`, starting with a letter or `_`, at most 100 characters; after the colon the
 * end of the line or a space), else -1. Done by hand: a regex match per line was most of what the
 * census allocated.
 */
function keyLineColon(line: string): number {
  const colon = line.indexOf(':');
  if (colon < 1 || colon > 100 || (colon + 1 < line.length && line.charCodeAt(colon + 1) !== 32)) return -1;
  for (let i = 0; i < colon; i += 1) {
    const c = line.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (i === 0 || !((c >= 48 && c <= 57) || c === 45))) return -1;
  }
  return colon;
}

/** The text between a pair of `quote`s, when it holds no `quote` (and, for double quotes, no escape). */
function quoted(text: string, quote: '"' | "'"): string | undefined {
  if (text.length < 2 || text[0] !== quote || text[text.length - 1] !== quote) return undefined;
  const inner = text.slice(1, -1);
  return inner.includes(quote) || (quote === '"' && inner.includes('\\')) ? undefined : inner;
}

function isSkippable(line: string): boolean {
  const first = line.charCodeAt(0);
  if (first === 35) return true; // '#'
  // The text is printable ASCII: only a line that starts with a space (or is empty) can be blank.
  if (first !== 32 && line.length > 0) return false;
  return line.trim() === '';
}

/** A key as js-yaml stores it: resolved like a plain scalar, then made a string (`True:` is "true"). */
function keyOf(raw: string): string | undefined {
  const key = String(plainScalar(raw));
  return key === '__proto__' ? undefined : key;
}

/** The lines indented under `key:` (a map or a list, one level), or null when there are none. */
function nestedBlock(lines: readonly string[], start: number): { value: Value; next: number } | undefined {
  let indent: number | undefined;
  let kind: 'map' | 'list' | undefined;
  const map: Record<string, Scalar> = {};
  const list: Scalar[] = [];
  let i = start;
  for (; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (isSkippable(line)) continue;
    if (!line.startsWith(' ')) break;
    const item = NESTED_ITEM_LINE.exec(line);
    const entry = item ? undefined : NESTED_KEY_LINE.exec(line);
    const lineKind = item ? 'list' : entry ? 'map' : undefined;
    const lineIndent = (item ?? entry)?.[1]!.length;
    if (lineKind === undefined || (kind !== undefined && (lineKind !== kind || lineIndent !== indent))) return undefined;
    kind = lineKind;
    indent = lineIndent;
    if (item) {
      const value = blockScalar(item[2]!.trim());
      if (value === undefined) return undefined;
      list.push(value);
    } else {
      const key = keyOf(entry![2]!);
      if (key === undefined || Object.hasOwn(map, key)) return undefined;
      const rest = entry![3]?.trim() ?? '';
      const value = rest === '' ? null : blockScalar(rest);
      if (value === undefined) return undefined;
      map[key] = value;
    }
  }
  const value = kind === 'list' ? list : kind === 'map' ? map : null;
  return { value, next: i };
}

/** A top-level value: a scalar, `[]`/`{}`, or a flow list of plain words. */
function blockValue(text: string): Value | undefined {
  if (text === '{}') return {};
  if (text.startsWith('[')) return flowList(text);
  return blockScalar(text);
}

function flowList(text: string): Scalar[] | undefined {
  if (!text.endsWith(']')) return undefined;
  const inner = text.slice(1, -1);
  if (inner.trim() === '') return [];
  if (FLOW_ITEM_FORBIDDEN.test(inner)) return undefined;
  const items: Scalar[] = [];
  for (const part of inner.split(',')) {
    const word = part.trim();
    if (word === '' || INDICATOR_START.test(word)) return undefined;
    items.push(plainScalar(word));
  }
  return items;
}

/** A quoted string without escapes, or a one-line plain scalar. */
function blockScalar(text: string): Scalar | undefined {
  const double = quoted(text, '"');
  if (double !== undefined) return double;
  const single = quoted(text, "'");
  if (single !== undefined) return single;
  if (text === '' || INDICATOR_START.test(text) || text.includes(': ') || text.includes(' #') || text.endsWith(':')) return undefined;
  return plainScalar(text);
}

/**
 * The only plain scalars starting with a letter or `_` that JSON_SCHEMA's implicit types resolve
 * to something other than the text: its null and bool spellings. Every int and float starts with
 * a digit, a sign or a dot.
 */
const WORD_SCALARS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** A plain scalar's meaning under JSON_SCHEMA: the first implicit type that resolves it, else the text. */
function plainScalar(text: string): Scalar {
  // Most keys and values start with a letter: no resolver needs to look at them (the census
  // meets a dozen per card; four regular expressions each was a third of the parse).
  const first = text.charCodeAt(0);
  if (((first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95) && !WORD_SCALARS.has(text)) return text;
  for (const type of IMPLICIT!) {
    if (type.resolve(text)) return type.construct(text) as Scalar;
  }
  return text;
}
