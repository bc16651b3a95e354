import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { loadSimpleYaml } from '../../src/format/simple-yaml.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';

/** What js-yaml makes of a front matter, as loadYaml would return it: a map, {} for nothing, or a refusal. */
function oracle(text: string): { ok: true; value: Record<string, unknown> } | { ok: false } {
  let value: unknown;
  try {
    value = yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch {
    return { ok: false };
  }
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The fast path either declines or answers exactly what js-yaml answers, keys in the same order. */
function agrees(text: string): 'declined' | 'same' | string {
  const fast = loadSimpleYaml(text);
  if (fast === undefined) return 'declined';
  const slow = oracle(text);
  if (!slow.ok) return `js-yaml refuses ${JSON.stringify(text)}, the fast path read ${JSON.stringify(fast)}`;
  if (!isDeepStrictEqual(fast, slow.value) || !isDeepStrictEqual(Object.keys(fast), Object.keys(slow.value))) {
    return `${JSON.stringify(text)}: fast ${JSON.stringify(fast)} vs js-yaml ${JSON.stringify(slow.value)}`;
  }
  return 'same';
}

// Words that mean something to YAML's JSON schema, or that sit on the edge of a plain scalar.
const TRICKY = [
  'null', 'Null', 'NULL', '~', 'true', 'True', 'TRUE', 'false', 'False', 'yes', 'no', 'on', 'off', 'y', 'n',
  '0', '00', '007', '-1', '+1', '1_000', '0x1F', '0o17', '0b101', '1e3', '1.5', '.5', '5.', '.inf', '-.inf', '.nan', '.NaN',
  '07:30', '1:20:30', '2026-11-05', '2026-11-05T09:00:00.000Z', '2026-11-05 09:00', '12345678901234567890',
  'a: b', 'a:b', 'a:', ':a', 'a #b', 'a#b', '#a', 'C#', 'http://x/y#z', 'a, b', 'a]', 'a}', '[a]', '{a}', '{}', '[]', '[ ]',
  '"q"', '"q', 'q"', "'s'", "'s''t'", "it's", '"a\\"b"', '"a\\nb"', '"a # b"', "'a: b'", '!tag', '&anchor', '*alias',
  '|', '>', '|-', '%x', '@x', '`x', '?x', '? x', '-x', '- x', '---', '...', 'a  b', ' lead', 'trail ', '__proto__', 'constructor',
];
const CHARS = 'abcXYZ019 :#-.,[]{}"\'!&*|>%@`?_+~\\/=';

const word = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ unit: fc.constantFrom(...CHARS.split('')), minLength: 1, maxLength: 12 }),
);
const key = fc.oneof(fc.constantFrom('function', 'request', 'a', 'b', 'b-c', '_x', 'True', 'true', 'null', '1a', 'x y', '"q"', '__proto__', 'constructor'), word);
const space = fc.constantFrom('', ' ', '  ', '   ');
const flow = fc.array(word, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`);
const value = fc.oneof(word, flow, fc.constantFrom('', '[]', '{}', '[a, b]', '[ a ,b ]', '[a,]', '[a, [b]]'));
const nested = fc.tuple(fc.constantFrom(' ', '  ', '    '), fc.boolean(), fc.array(fc.tuple(key, word), { minLength: 1, maxLength: 3 })).map(([indent, list, entries]) =>
  entries.map(([k, v]) => (list ? `${indent}- ${v}` : `${indent}${k}: ${v}`)),
);
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(key, space, value).map(([k, s, v]) => [`${k}:${v === '' ? s : ` ${s}${v}`}`]) },
  { weight: 3, arbitrary: fc.tuple(key, space, nested).map(([k, s, n]) => [`${k}:${s}`, ...n]) },
  { weight: 1, arbitrary: fc.constantFrom([''], ['   '], ['# a comment'], ['  # indented comment'], ['  continued'], ['- item'], ['\tkey: tab'], ['key: x\r'], ['caf\u00e9: cr\u00e8me']) },
);
const documents = fc.tuple(fc.array(line, { maxLength: 8 }), fc.boolean()).map(([lines, eol]) => lines.flat().join('\n') + (eol ? '\n' : ''));

describe('loadSimpleYaml', () => {
  it('declines or agrees with js-yaml, on generated front matter', () => {
    let same = 0;
    let runs = 0;
    fc.assert(
      fc.property(documents, (text) => {
        runs += 1;
        const verdict = agrees(text);
        if (verdict === 'same') same += 1;
        return verdict === 'same' || verdict === 'declined' ? true : (expect.fail(verdict), false);
      }),
      { numRuns: 20_000 },
    );
    // The property is only worth something if the fast path takes a real share of the documents.
    expect(same / runs).toBeGreaterThan(0.1);
  });

  it.each([
    ['a bench card', 'function: fn-3\nrequest: "Please write the topic 3 report"\ncreated: 2026-11-04T09:03:00.000Z\norigin: human\ninputs:\n  source: notes/source-11.md\npriority: normal\nattempts: 0\npaths: []\n'],
    ['a profile', 'name: profile-3\nversion: 1\ndescription: Profile 3. It writes reports.\nfunction: fn-3\nhandles: [topic 3 report, topic 3 summary]\nrefuses: [secret topic 3]\nskills: [write-report]\nmodel_capacity: standard\n'],
    ['a claimed card', "function: write\nrequest: 'a post'\ncreated: 2026-11-04 09:03\norigin: human\nagent: writer\nclaimed: 2026-12-02T10:00:00.000Z\nmodel: m-medium\nattempts: 1\npaths:\n  - out/a.md\n  - out/b.md\nblocked: false\n"],
    ['a template', 'function: digest\nrequest: the weekly digest\norigin: scheduler\ntrigger:\n  every: week\n  day: monday\n  time: 07:30\n  active: true\n'],
    ['nothing', ''],
    ['comments and blank lines', '# a note\n\nfunction: x\n\n# another\nrequest: y\n'],
  ])('reads %s as js-yaml does', (_label, text) => {
    expect(agrees(text)).toBe('same');
  });

  it.each([
    ['an escape in quotes', 'request: "a\\"b"\n'],
    ['a comment after a value', 'request: write it # now\n'],
    ['a folded plain scalar', 'request: write\n  it now\n'],
    ['a block scalar', 'request: |\n  write it\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['non-ASCII text', 'request: caf\u00e9\n'],
    ['CRLF', 'a: 1\r\n'],
    ['a tab', 'a:\t1\n'],
    ['two levels of nesting', 'inputs:\n  a:\n    b: c\n'],
    ['an anchor', 'a: &x 1\n'],
  ])('leaves %s to js-yaml', (_label, text) => {
    expect(loadSimpleYaml(text)).toBeUndefined();
  });

  it("takes every card and profile of the example vault, and reads each as js-yaml does", () => {
    const root = path.join(import.meta.dirname, '../../examples/vault');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md') && (f.startsWith('KANBAN') || f.endsWith('PROFILE.md')));
    expect(files.length).toBeGreaterThan(5);
    const taken = files.filter((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      if (!text.startsWith('---')) return false;
      const yamlText = parseFrontMatter(text).yamlText;
      const verdict = agrees(yamlText);
      expect(verdict, f).not.toMatch(/fast|refuses/);
      return verdict === 'same';
    });
    expect(taken.length / files.length).toBeGreaterThan(0.5);
  });
});
