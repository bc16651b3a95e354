import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrontMatterError, loadYaml, parseFrontMatter, renderEntry, renderFrontMatter, setFields, withBody } from '../../src/format/frontmatter.js';
import { forTerminal, valueWithoutControls, withoutControls } from '../../src/format/control.js';
import { appendRecord } from '../../src/format/record.js';

describe('parseFrontMatter', () => {
  it('splits head, YAML, fence and body', () => {
    const doc = parseFrontMatter('---\ntitle: x\ncreated: 2026-08-20\n---\n\n# Body\n');
    expect(doc).toEqual({
      head: '---\n',
      yamlText: 'title: x\ncreated: 2026-08-20\n',
      fence: '---\n',
      body: '\n# Body\n',
      eol: '\n',
      data: { title: 'x', created: '2026-08-20' },
    });
  });

  it('keeps a BOM and CRLF endings in the head, and reports CRLF', () => {
    const doc = parseFrontMatter('\uFEFF---\r\na: 1\r\n---\r\nbody\r\n');
    expect(doc.head).toBe('\uFEFF---\r\n');
    expect(doc.yamlText).toBe('a: 1\r\n');
    expect(doc.fence).toBe('---\r\n');
    expect(doc.body).toBe('body\r\n');
    expect(doc.eol).toBe('\r\n');
    expect(doc.data).toEqual({ a: 1 });
  });

  it.each([
    ['closing fence at end of file without newline', '---\na: 1\n---', { fence: '---', body: '' }],
    ['closing with "..."', '---\na: 1\n...\nbody', { fence: '...\n', body: 'body' }],
    ['fences with trailing spaces', '---  \na: 1\n--- \t\nbody', { fence: '--- \t\n', body: 'body' }],
    ['empty front matter', '---\n---\nbody', { yamlText: '', data: {}, body: 'body' }],
    ['only comments', '---\n# nothing\n---\n', { yamlText: '# nothing\n', data: {} }],
    ['a later "---" in the body is body', '---\na: 1\n---\ntext\n---\nmore\n', { body: 'text\n---\nmore\n' }],
    ['"----" is not a fence', '---\na: |\n  x\n----: 2\n---\n', { data: { a: 'x\n', '----': 2 } }],
  ])('%s', (_label, text, expected) => {
    expect(parseFrontMatter(text)).toMatchObject(expected);
  });

  it.each([
    ['created: 2026-08-20', { created: '2026-08-20' }],
    ['claimed: 2026-08-20T10:00:00Z', { claimed: '2026-08-20T10:00:00Z' }],
    ['t: 2026-08-20 13:56', { t: '2026-08-20 13:56' }],
    ['answer: yes', { answer: 'yes' }],
    ['answer: no', { answer: 'no' }],
    ['time: 07:30', { time: '07:30' }],
    ['n: 012', { n: 12 }],
    ['n: 12', { n: 12 }],
    ['n: 1.5', { n: 1.5 }],
    ['b: true', { b: true }],
    ['z: null', { z: null }],
    ['z: ~', { z: null }],
    ['z:', { z: null }],
    ['paths: []', { paths: [] }],
  ])('JSON schema: %j', (line, expected) => {
    expect(parseFrontMatter(`---\n${line}\n---\n`).data).toEqual(expected);
  });

  it.each([
    ['no opening fence', 'title: x\n---\n', 'no front matter: the file must start with a line "---"', 1],
    ['opening fence not on line 1', '\n---\na: 1\n---\n', 'no front matter: the file must start with a line "---"', 1],
    ['never closed', '---\na: 1\n', 'front matter is never closed by a line "---"', undefined],
    ['NUL bytes', '---\na: 1\0\n---\n', 'the file holds NUL bytes: not a text card', undefined],
    ['a list, not a map', '---\n- a\n- b\n---\n', 'front matter must be a map of fields, not a list or a scalar', undefined],
    ['a scalar, not a map', '---\njust text\n---\n', 'front matter must be a map of fields, not a list or a scalar', undefined],
  ])('rejects %s', (_label, text, message, line) => {
    const error = (() => {
      try {
        parseFrontMatter(text);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(FrontMatterError);
    expect((error as FrontMatterError).message).toBe(message);
    expect((error as FrontMatterError).line).toBe(line);
  });

  it('reports the file line of a YAML error (counting the opening fence)', () => {
    try {
      parseFrontMatter('---\na: 1\nb: [unclosed\nc: 2\n---\n');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FrontMatterError);
      expect((e as FrontMatterError).message).toMatch(/^invalid YAML: /);
      expect((e as FrontMatterError).line).toBeGreaterThanOrEqual(3);
    }
  });

  it('rejects duplicate keys', () => {
    expect(() => parseFrontMatter('---\na: 1\na: 2\n---\n')).toThrow(/duplicated mapping key/);
  });

  it('loadYaml of nothing is an empty map', () => {
    expect(loadYaml('')).toEqual({});
    expect(loadYaml('# c\n')).toEqual({});
  });

  it('renderFrontMatter is the inverse of parse', () => {
    for (const text of ['---\na: 1\n---\nb', '\uFEFF---\r\na: 1\r\n...\r\n', '---\n---\n']) expect(renderFrontMatter(parseFrontMatter(text))).toBe(text);
  });
});

describe('renderEntry', () => {
  it.each<[string, unknown, string, string]>([
    ['a', 'x', '\n', 'a: x\n'],
    ['created', '2026-08-20', '\n', "created: '2026-08-20'\n"],
    ['attempts', 0, '\n', 'attempts: 0\n'],
    ['paths', [], '\n', 'paths: []\n'],
    ['paths', ['a.md', 'b/c.md'], '\r\n', 'paths:\r\n  - a.md\r\n  - b/c.md\r\n'],
    ['blocked', false, '\n', 'blocked: false\n'],
    ['m', { x: 1 }, '\n', 'm:\n  x: 1\n'],
    ['s', 'true', '\n', "s: 'true'\n"],
    ['s', 'a: b', '\n', "s: 'a: b'\n"],
    ['s', 'line1\nline2', '\r\n', 's: |-\r\n  line1\r\n  line2\r\n'],
    ['my key', 1, '\n', 'my key: 1\n'],
  ])('renderEntry(%j, %j)', (key, value, eol, expected) => {
    expect(renderEntry(key, value, eol)).toBe(expected);
  });
});

const DOC = [
  '---',
  '# a leading comment',
  'function: write',
  'request: "Write: a post"   # why',
  'created: 2026-08-20',
  "'quoted key': 1",
  '"dq": two',
  'paths:',
  '- a.md',
  '- b.md',
  '',
  '# between',
  'inputs:',
  '  source: x.md',
  '  more:',
  '    - y.md',
  'notes: |',
  '  line one',
  '',
  '  line two',
  'attempts: 0',
  '# trailing comment',
  '',
  '---',
  '',
  'Body stays.',
  '',
].join('\n');

describe('setFields', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    // [label, updates, expected front matter lines between the fences]
    [
      'replace a scalar, keep everything else',
      { attempts: 1 },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', 'created: 2026-08-20', "'quoted key': 1", '"dq": two', 'paths:', '- a.md', '- b.md', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'notes: |', '  line one', '', '  line two', 'attempts: 1', '# trailing comment', ''],
    ],
    [
      'replace a column-0 block list, keeping the blank line and comment after it',
      { paths: ['c.md'] },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', 'created: 2026-08-20', "'quoted key': 1", '"dq": two', 'paths:', '  - c.md', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'notes: |', '  line one', '', '  line two', 'attempts: 0', '# trailing comment', ''],
    ],
    [
      'replace a nested map and a block scalar',
      { inputs: { source: 'z.md' }, notes: 'short' },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', 'created: 2026-08-20', "'quoted key': 1", '"dq": two', 'paths:', '- a.md', '- b.md', '', '# between', 'inputs:', '  source: z.md', 'notes: short', 'attempts: 0', '# trailing comment', ''],
    ],
    [
      'replace quoted keys (the edit writes the key plainly)',
      { 'quoted key': 2, dq: 'three' },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', 'created: 2026-08-20', 'quoted key: 2', 'dq: three', 'paths:', '- a.md', '- b.md', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'notes: |', '  line one', '', '  line two', 'attempts: 0', '# trailing comment', ''],
    ],
    [
      'remove keys (a line comment goes with its key)',
      { request: undefined, paths: undefined, notes: undefined, absent: undefined },
      ['# a leading comment', 'function: write', 'created: 2026-08-20', "'quoted key': 1", '"dq": two', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'attempts: 0', '# trailing comment', ''],
    ],
    [
      'append new keys after the last one, before trailing comments, in the given order',
      { agent: 'writer', claimed: '2026-08-20T10:00:00Z', model: 'big' },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', 'created: 2026-08-20', "'quoted key': 1", '"dq": two', 'paths:', '- a.md', '- b.md', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'notes: |', '  line one', '', '  line two', 'attempts: 0', 'agent: writer', "claimed: '2026-08-20T10:00:00Z'", 'model: big', '# trailing comment', ''],
    ],
    [
      'dates written stay strings (quoted)',
      { created: '2026-08-21' },
      ['# a leading comment', 'function: write', 'request: "Write: a post"   # why', "created: '2026-08-21'", "'quoted key': 1", '"dq": two', 'paths:', '- a.md', '- b.md', '', '# between', 'inputs:', '  source: x.md', '  more:', '    - y.md', 'notes: |', '  line one', '', '  line two', 'attempts: 0', '# trailing comment', ''],
    ],
  ])('%s', (_label, updates, lines) => {
    const out = setFields(DOC, updates);
    expect(out).toBe(['---', ...lines, '---', '', 'Body stays.', ''].join('\n'));
  });

  it('an empty update changes nothing', () => {
    expect(setFields(DOC, {})).toBe(DOC);
  });

  it('setting a field to its current value rewrites only that field', () => {
    expect(setFields('---\na: 1\nb:  2\n---\n', { b: 2 })).toBe('---\na: 1\nb: 2\n---\n');
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    ['CRLF file: new lines use CRLF', '---\r\na: 1\r\nb:\r\n- x\r\n---\r\nbody\r\n', { b: ['p', 'q'], c: 'multi\nline' }, '---\r\na: 1\r\nb:\r\n  - p\r\n  - q\r\nc: |-\r\n  multi\r\n  line\r\n---\r\nbody\r\n'],
    ['BOM kept', '\uFEFF---\na: 1\n---\nbody', { a: 2 }, '\uFEFF---\na: 2\n---\nbody'],
    ['empty front matter gets the key', '---\n---\nbody', { a: 1 }, '---\na: 1\n---\nbody'],
    ['comment-only front matter: key goes first', '---\n# c\n---\n', { a: 1 }, '---\na: 1\n# c\n---\n'],
    ['closing "..." kept', '---\na: 1\n...\nbody', { b: 2 }, '---\na: 1\nb: 2\n...\nbody'],
    ['fence without newline at EOF', '---\na: 1\n---', { a: 3 }, '---\na: 3\n---'],
    ['removing the only key', '---\na: 1\n---\n', { a: undefined }, '---\n---\n'],
    ['list with a bare "-" item at column 0', '---\npaths:\n- a\n-\ntitle: x\n---\n', { paths: ['b'] }, '---\npaths:\n  - b\ntitle: x\n---\n'],
    ['CRLF list with a bare "-" item', '---\r\npaths:\r\n- a\r\n-\r\nt: x\r\n---\r\n', { paths: [] }, '---\r\npaths: []\r\nt: x\r\n---\r\n'],
    ['double-quoted key with escapes', '---\n"a\\"b": 1\nc: 2\n---\n', { 'a"b': 5 }, '---\na"b: 5\nc: 2\n---\n'],
    ['double-quoted key with a unicode escape', '---\n"\\u0041x": 1\n---\n', { Ax: 2 }, '---\nAx: 2\n---\n'],
    ["single-quoted key with ''", "---\n'it''s': 1\n---\n", { "it's": 2 }, "---\nit's: 2\n---\n"],
    ['key with a space before the colon', '---\na : 1\nb: 2\n---\n', { a: 3 }, '---\na: 3\nb: 2\n---\n'],
    ['plain key with # and : inside', '---\nx#y: 1\na:b: 2\n---\n', { 'x#y': 3, 'a:b': 4 }, '---\nx#y: 3\na:b: 4\n---\n'],
    ['key with spaces inside', '---\nmy key: 1\n---\n', { 'my key': 2 }, '---\nmy key: 2\n---\n'],
    ['multi-line plain scalar replaced whole', '---\nr: first\n  second\nt: 1\n---\n', { r: 'x' }, '---\nr: x\nt: 1\n---\n'],
    ['folded scalar replaced whole', '---\nr: >-\n  a\n  b\n\n  c\nt: 1\n---\n', { r: 'x' }, '---\nr: x\nt: 1\n---\n'],
    ['keep-chomped scalar at the end: appending goes after its blank lines', '---\nt: 1\nr: |+\n  x\n\n---\n', { z: 'y' }, '---\nt: 1\nr: |+\n  x\n\nz: \'y\'\n---\n'],
    ['keep-chomped scalar replaced with its blank lines', '---\nr: |+\n  x\n\n\nt: 1\n---\n', { r: 'y' }, "---\nr: 'y'\nt: 1\n---\n"],
    ['keep-chomped scalar inside a list', '---\nf:\n  - |+\n    a\n\np: 1\n---\n', { f: ['b'] }, '---\nf:\n  - b\np: 1\n---\n'],
    ['a new keep-chomped value does not swallow the blank line after it', '---\nb: x\n\n# c\n---\n', { k: '\n' }, '---\nb: x\n\nk: |+\n\n# c\n---\n'],
    ['a replaced keep-chomped value does not swallow the blank line after it', '---\nb: x\n\nc: 1\n---\n', { b: 'v\n\n' }, '---\n\nb: |+\n  v\n\nc: 1\n---\n'],
    ['flow map value', '---\nm: {a: 1,\n  b: 2}\nt: 1\n---\n', { m: { c: 3 } }, '---\nm:\n  c: 3\nt: 1\n---\n'],
    ['value that is the key of a dash key', '---\n-x: 1\n---\n', { '-x': 2 }, "---\n'-x': 2\n---\n"],
    ['null written as null', '---\na: 1\n---\n', { a: null }, '---\na: null\n---\n'],
    ['nested list of maps', '---\na: 1\n---\n', { a: [{ x: 1, y: [true] }] }, "---\na:\n  - x: 1\n    'y':\n      - true\n---\n"],
  ])('%s', (_label, text, updates, expected) => {
    expect(setFields(text, updates)).toBe(expected);
  });

  it('refuses to edit a key that appears twice (to its own eyes)', () => {
    // A line inside a multi-line quoted scalar at column 0 looks like a key.
    const text = '---\nrequest: "first\ntitle: not a key"\ntitle: real\n---\n';
    expect(parseFrontMatter(text).data).toEqual({ request: 'first title: not a key', title: 'real' });
    expect(() => setFields(text, { title: 'x' })).toThrow('field "title" appears more than once');
  });

  it('refuses a file with duplicate keys (it does not parse)', () => {
    expect(() => setFields('---\na: 1\na: 2\n---\n', { a: 3 })).toThrow(FrontMatterError);
  });

  it('refuses an edit that would change other fields, returning nothing', () => {
    // A flow sequence whose closing bracket sits at column 0 is not seen as part of its key.
    const text = '---\np: [a,\n  b\n]\nt: 1\n---\n';
    expect(parseFrontMatter(text).data).toEqual({ p: ['a', 'b'], t: 1 });
    expect(() => setFields(text, { p: ['c'] })).toThrow(FrontMatterError);
  });

  it('refuses text without front matter', () => {
    expect(() => setFields('no front matter', { a: 1 })).toThrow('no front matter: the file must start with a line "---"');
  });

  it('accepts negative zero', () => {
    expect(parseFrontMatter(setFields('---\na: 1\n---\n', { a: -0 })).data).toEqual({ a: -0 });
  });

  it('withBody replaces only the body', () => {
    expect(withBody('\uFEFF---\r\na: 1\r\n---\r\nold', 'new\r\n')).toBe('\uFEFF---\r\na: 1\r\n---\r\nnew\r\n');
  });
});

// ---------------------------------------------------------------------------------------------
// Property: for random edits of a front matter built from many shapes, the result re-parses to
// the expected data, in the expected key order, every line of an unedited key or between keys is
// still there in order and byte-identical, and head, fence and body are untouched.

interface Chunk {
  key: string;
  lines: string[];
}

const SHAPES: ((key: string) => string[])[] = [
  (k) => [`${k}: hello`],
  (k) => [`${k}: "quoted: yes" # comment`],
  (k) => [`${k}: 'single ''q'''`],
  (k) => [`${k}: 2026-08-20`],
  (k) => [`${k}: 42`],
  (k) => [`${k}:`],
  (k) => [`"${k}": true`],
  (k) => [`'${k}': null`],
  (k) => [`${k} : spaced`],
  (k) => [`${k}:`, '- a', '- b: 1', '  c: 2'],
  (k) => [`${k}:`, '  - a', '  - [x, y]'],
  (k) => [`${k}:`, '- a', '-', '- c'],
  (k) => [`${k}: [a, b]`],
  (k) => [`${k}: {a: 1, b: [2]}`],
  (k) => [`${k}:`, '  x: 1', '  y:', '    - z', '  # inner comment', '  w: |', '    deep'],
  (k) => [`${k}: |`, '  line one', '', '  line two'],
  (k) => [`${k}: >-`, '  folded', '  text'],
  (k) => [`${k}: |+`, '  kept', ''],
  (k) => [`${k}: first`, '  continued'],
  (k) => [`${k}: x`, ''],
];
const INTERSTITIALS = ['# a comment', '#', '# ---', '# key: not a key'];

const existingKeys = ['function', 'request', 'created', 'origin', 'paths', 'agent', 'a', 'b2', 'my_key', 'x-y'];
const newKeys = ['claimed', 'model', 'blocked', 'closed', 'new key', "it's", 'a"b', 'y', 'on', '-dash', 'x#y', 'tab\tkey', 'é'];

const tricky = fc.constantFrom(
  '', ' ', '2026-08-20', '2026-08-20T10:00:00Z', 'yes', 'no', 'null', '~', 'true', '0x1F', '012', '1e3', '- a', '# x', 'a: b', 'a #b',
  '"', "'", '---', '...', '\n', 'a\nb', 'a\n\n', 'a\n---\nb', ' lead', 'trail ', '|', '>', '\t', '\r\n', '\uFEFF', '[x]', '{y}', '*ref', '&anchor', '!tag', '%', '@', '`',
);
const scalar = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  tricky,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !/^\d+$/.test(k) && k !== '__proto__'), tricky.filter((k) => k !== '')), tie('value'), {
    maxKeys: 4,
  }),
}));

const docArb = fc
  .record({
    chunks: fc.uniqueArray(fc.record({ key: fc.constantFrom(...existingKeys), shape: fc.nat(SHAPES.length - 1), gap: fc.option(fc.constantFrom(...INTERSTITIALS), { nil: undefined }) }), {
      selector: (c) => c.key,
      maxLength: existingKeys.length,
    }),
    leading: fc.option(fc.constantFrom(...INTERSTITIALS), { nil: undefined }),
    trailing: fc.option(fc.constantFrom(...INTERSTITIALS, ''), { nil: undefined }),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    body: fc.string({ unit: 'binary' }).filter((b) => !b.includes('\0')),
  })
  .chain((d) =>
    fc.record({
      doc: fc.constant(d),
      edits: fc.tuple(...d.chunks.map(() => fc.oneof(fc.constant<'keep'>('keep'), fc.constant<'remove'>('remove'), value.map((v) => ({ v }))))),
      added: fc.uniqueArray(fc.record({ key: fc.constantFrom(...newKeys), v: value }), { selector: (a) => a.key, maxLength: 3 }),
    }),
  );

describe('setFields properties', () => {
  it('edits only the edited keys, byte for byte', () => {
    fc.assert(
      fc.property(docArb, ({ doc, edits, added }) => {
        const eol = doc.crlf ? '\r\n' : '\n';
        const kept: string[] = []; // lines that must survive, in order
        const all: string[] = [];
        const push = (line: string, keep: boolean) => {
          all.push(line + eol);
          if (keep) kept.push(line + eol);
        };
        if (doc.leading !== undefined) push(doc.leading, true);
        const chunks: Chunk[] = doc.chunks.map((c) => ({ key: c.key, lines: SHAPES[c.shape]!(c.key) }));
        chunks.forEach((c, i) => {
          const edited = edits[i] !== 'keep';
          for (const line of c.lines) push(line, !edited);
          const gap = doc.chunks[i]!.gap;
          if (gap !== undefined) push(gap, true);
        });
        if (doc.trailing !== undefined) push(doc.trailing, doc.trailing !== '' || !doc.chunks.length || edits[edits.length - 1] === 'keep');
        const head = `${doc.bom ? '\uFEFF' : ''}---${eol}`;
        const fence = `---${eol}`;
        const text = head + all.join('') + fence + doc.body;

        const before = parseFrontMatter(text).data;
        const updates: Record<string, unknown> = {};
        chunks.forEach((c, i) => {
          const e = edits[i]!;
          if (e === 'remove') updates[c.key] = undefined;
          else if (e !== 'keep') updates[c.key] = e.v;
        });
        for (const a of added) updates[a.key] = a.v;

        const out = setFields(text, updates);

        // Head, fence and body untouched.
        expect(out.startsWith(head)).toBe(true);
        expect(out.endsWith(fence + doc.body)).toBe(true);
        const after = parseFrontMatter(out);
        expect(after.body).toBe(doc.body);

        // Data: what was asked, nothing else; key order kept, new keys last.
        const expected: Record<string, unknown> = {};
        for (const k of Object.keys(before)) {
          if (!(k in updates)) expected[k] = before[k];
          else if (updates[k] !== undefined) expected[k] = valueWithoutControls(updates[k]);
        }
        // What the board writes holds no control characters but tab and newline (control.ts).
        for (const a of added) expected[a.key] = valueWithoutControls(a.v);
        expect(JSON.parse(JSON.stringify(after.data))).toEqual(JSON.parse(JSON.stringify(expected)));
        expect(Object.keys(after.data)).toEqual(Object.keys(expected));

        // Every kept line is still there, in order, byte-identical.
        const outLines = after.yamlText.match(/[^\n]*\n|[^\n]+$/g) ?? [];
        let j = 0;
        for (const line of kept) {
          while (j < outLines.length && outLines[j] !== line) j += 1;
          expect(j, `line ${JSON.stringify(line)} kept in order`).toBeLessThan(outLines.length);
          j += 1;
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  }, 120_000);

  it('setting the values a card already has leaves every other line alone (idempotent second edit)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...existingKeys, ...newKeys), value, { maxKeys: 4 }), (updates) => {
        const text = '---\n# c\nfunction: write\npaths:\n- a\n---\nbody\n';
        const once = setFields(text, updates);
        expect(setFields(once, updates)).toBe(once);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  }, 120_000);
});

/** A "billion laughs": each level lists the one before ten times. */
export function laughs(levels: number): string {
  const lines = ['function: write', 'l0: &l0 "lol"'];
  for (let i = 1; i <= levels; i += 1) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  return `---\n${lines.join('\n')}\n---\nbody\n`;
}

describe('limits on what a front matter may cost', () => {
  it('refuses aliases that expand past what the text could hold, without expanding them', () => {
    for (const levels of [4, 9, 30]) {
      expect(() => parseFrontMatter(laughs(levels)), `${levels} levels`).toThrow(/billion laughs/);
    }
  });

  it('keeps the aliases a card could hold anyway', () => {
    const text = '---\nhandles: &h [draft, essay]\nalso: *h\nmore: [*h, *h]\n---\n';
    expect(parseFrontMatter(text).data).toEqual({ handles: ['draft', 'essay'], also: ['draft', 'essay'], more: [['draft', 'essay'], ['draft', 'essay']] });
  });

  it('refuses nesting deeper than any card needs', () => {
    expect(() => loadYaml(`a: ${'['.repeat(80)}${']'.repeat(80)}`)).toThrow(/nested deeper than 64/);
    expect(() => loadYaml(`a: ${'['.repeat(50_000)}${']'.repeat(50_000)}`)).toThrow(FrontMatterError);
  });

  it('refuses a front matter over 1 MiB, on both parsing paths, and stops looking for the fence past it', () => {
    const big = 'x'.repeat(1024 * 1024);
    expect(() => parseFrontMatter(`---\na: ${big}\n---\n`)).toThrow(/over 1 MiB/); // simple path
    expect(() => parseFrontMatter(`---\na: "${big}\\n"\n---\n`)).toThrow(/over 1 MiB/); // js-yaml path
    expect(() => parseFrontMatter(`---\na: ${'é'.repeat(600_000)}\n---\n`)).toThrow(/over 1 MiB/); // bytes, not characters
    expect(() => parseFrontMatter(`---\na: b\n${big}${big}`)).toThrow(/over 1 MiB/);
    expect(parseFrontMatter(`---\na: ${'x'.repeat(1000_000)}\n---\n`).data.a).toHaveLength(1000_000);
  });
});

describe('a card that ends at its closing fence', () => {
  for (const eol of ['\n', '\r\n']) {
    it(`gets its Record on a line of its own (${JSON.stringify(eol)})`, () => {
      const text = `---${eol}function: write${eol}request: x${eol}---`;
      const stamped = setFields(text, { claimed: '2026-12-02T10:00:00.000Z' });
      const out = appendRecord(stamped, new Date(2026, 11, 2, 10, 0), 'board', ['claimed.']);
      expect(out).toContain(`${eol}---${eol}## Record${eol}`);
      const doc = parseFrontMatter(out);
      expect(doc.data).toEqual({ function: 'write', request: 'x', claimed: '2026-12-02T10:00:00.000Z' });
      expect(doc.body).toMatch(/^## Record/);
      expect(withBody(text, 'b')).toBe(`---${eol}function: write${eol}request: x${eol}---${eol}b`);
    });
  }
});

describe('control characters', () => {
  it('no control character but tab and newline is written into a card: not by a field, not by the Record', () => {
    const text = '---\nfunction: write\n---\n';
    const hostile = 'a\u0000b\u001b[31mc\u007fd\u009be\rf\tg';
    const out = appendRecord(setFields(text, { blocked: hostile, paths: [hostile] }), new Date(2026, 11, 2), `w\u001b`, [`origin ${hostile}`]);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const data = parseFrontMatter(out).data;
    expect(data.blocked).toBe('a\\u0000b\\u001b[31mc\\u007fd\\u009be\\u000df\tg');
    expect((data.paths as string[])[0]).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out).toContain('- w\\u001b: origin a\\u0000b');
  });

  it('helpers: withoutControls keeps tab and newline; forTerminal keeps neither line breaks nor bidi overrides', () => {
    expect(withoutControls('a\tb\nc\u0007')).toBe('a\tb\nc\\u0007');
    expect(forTerminal('a\tb\nc\u001b\u202e')).toBe('a\tb\\u000ac\\u001b\\u202e');
    expect(valueWithoutControls({ k: ['\u0000', 1, null] })).toEqual({ k: ['\\u0000', 1, null] });
  });
});

describe('renderEntry writes no control characters either (a new card goes through it)', () => {
  it('escapes them visibly', () => {
    expect(loadYaml(renderEntry('request', 'a\u001b[2Jb\u0000', '\n'))).toEqual({ request: 'a\\u001b[2Jb\\u0000' });
  });
});
