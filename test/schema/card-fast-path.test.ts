import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exact } from '../helpers/exact.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { cardFastPath } from '../../src/schema/card-fast-path.js';
import { CARD_FIELDS, cardSchema } from '../../src/schema/card.js';

/** Which of the output's lists and objects are the input's own (zod copies the ones it validates). */
function sharing(out: Record<string, unknown>, input: Record<string, unknown>): string[] {
  const shared: string[] = [];
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (typeof value === 'object' && value !== null && value === input[key]) shared.push(key);
    if (key === 'inputs' && typeof value === 'object' && value !== null && typeof input.inputs === 'object' && input.inputs !== null) {
      for (const slot of Object.keys(value)) {
        if ((value as Record<string, unknown>)[slot] === (input.inputs as Record<string, unknown>)[slot] && typeof (value as Record<string, unknown>)[slot] === 'object') shared.push(`inputs.${slot}`);
      }
    }
  }
  return shared;
}

const text = fc.constantFrom('', 'a', 'Write the topic 3 report', 'notes/a.md', ' ', 'ä', 'false', 'null');
const created = fc.constantFrom('2026-08-20', '2026-08-20 13:56', '2026-08-20T13:56:07.5+02:00', '2026-8-20', 'yesterday', '2026-08-20T13:56Z');
const list = fc.oneof(fc.array(text, { maxLength: 3 }), fc.constant([1]), fc.constant(['a', , 'b']), fc.constant([null]));
const slots = fc.oneof(
  fc.dictionary(fc.constantFrom('brief', 'data', '1', 'constructor', 'toString'), fc.oneof(text, list, fc.constant(3)), { maxKeys: 3 }),
  fc.constant(JSON.parse('{"__proto__": "x.md"}') as unknown),
  fc.constant(Object.create(null) as unknown),
);
const anyValue = fc.oneof(
  text,
  created,
  list,
  slots,
  fc.constantFrom(undefined, null, true, false, 0, -0, 1, 2.5, -1, Number.NaN, Infinity, 2 ** 60, 'Urgent', 'NORMAL', 'urgent!', 'low'),
  fc.constant(new Date('2026-08-20T00:00:00Z')),
);
/** For each card field: absent, or any value (weighted towards the valid ones). */
function mostly(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: anyValue });
}
const fieldValue: Record<string, fc.Arbitrary<unknown>> = {
  function: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('writer', 'Write Reports') }, { weight: 1, arbitrary: anyValue }),
  request: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('write the topic 3 report') }, { weight: 1, arbitrary: anyValue }),
  created: fc.oneof({ weight: 4, arbitrary: created }, { weight: 1, arbitrary: anyValue }),
  origin: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('human', 'director-1') }, { weight: 1, arbitrary: anyValue }),
  paths: mostly(fc.array(fc.constantFrom('a.md', 'b/c.md'), { maxLength: 3 })),
  attempts: mostly(fc.integer({ min: -2, max: 5 })),
  priority: mostly(fc.constantFrom('urgent', 'Normal', ' URGENT ', null)),
  inputs: mostly(fc.dictionary(fc.constantFrom('brief', 'data'), fc.oneof(fc.constant('a.md'), fc.array(fc.constant('b.md'), { maxLength: 2 })), { maxKeys: 2 })),
  destination: mostly(fc.constantFrom('out/x.md', null)),
  blocked: mostly(fc.constantFrom('2026-08-20 waiting', '', false, null)),
};
const REQUIRED = ['function', 'request', 'created', 'origin'];
const OPTIONAL = CARD_FIELDS.filter((f) => !REQUIRED.includes(f));
const card = fc
  .record(
    {
      present: fc.subarray(OPTIONAL, { maxLength: 6 }),
      // Now and then one required field is missing.
      dropped: fc.integer({ min: 0, max: 39 }).map((n) => REQUIRED[n]),
      values: fc.record(Object.fromEntries(CARD_FIELDS.map((f) => [f, fieldValue[f] ?? mostly(fc.constantFrom('x', 'flow-1'))]))),
      extra: fc.dictionary(fc.constantFrom('tags', 'zzz', '7', 'constructor', 'hasOwnProperty', 'Function'), anyValue, { maxKeys: 2 }),
      protoKey: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      order: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
    },
    { noNullPrototype: true },
  )
  .map(({ present, dropped, values, extra, protoKey, order }) => {
    const fields = [...REQUIRED.filter((f) => f !== dropped), ...present];
    const entries: [string, unknown][] = [...fields.map((f) => [f, values[f]] as [string, unknown]), ...Object.entries(extra)];
    // Written in a shuffled order: zod's output order must not depend on the card's.
    entries.sort((a, b) => (order[entries.indexOf(a) % 30]! - order[entries.indexOf(b) % 30]!));
    const data: Record<string, unknown> = {};
    for (const [k, v] of entries) data[k] = v;
    if (protoKey) Object.defineProperty(data, '__proto__', { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    return data;
  });

describe('cardFastPath', () => {
  it('returns exactly what zod returns, or declines (generated cards)', () => {
    let accepted = 0;
    let valid = 0;
    fc.assert(
      fc.property(card, (data) => {
        const fast = cardFastPath(data);
        const zod = cardSchema.safeParse(data);
        if (zod.success) valid += 1;
        if (fast === undefined) return;
        accepted += 1;
        expect(zod.success, 'the fast path accepted what zod rejects').toBe(true);
        expect(exact(fast)).toEqual(exact(zod.data));
        expect(sharing(fast, data)).toEqual(sharing(zod.data, data));
      }),
      { numRuns: 20000 },
    );
    // Not vacuous: most valid cards take the fast path.
    expect(valid).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(valid * 0.8);
  });

  it('takes every card of the shipped examples and of the shapes the board writes, as zod reads them', () => {
    const texts = [
      '---\nfunction: writer\nrequest: "Write the report"\ncreated: 2026-08-20 13:56\norigin: human\npaths: []\nattempts: 0\n---\n\nbody\n',
      '---\nfunction: Writer\nrequest: Write the report\ncreated: 2026-08-20T13:56:00Z\norigin: director-1\npriority: Urgent\ninputs:\n  brief: notes/brief.md\n  data: [a.csv, b.csv]\ndestination: out/report.md\nflow: flow-7\ndirector: director-1\nagent: writer\nclaimed: 2026-08-20 14:00\nmodel: m-large\nblocked: false\nattempts: 2\ntags: [x, y]\n---\n',
      '---\nfunction: writer\nrequest: r\ncreated: 2026-08-20\norigin: human\nblocked:\nrecipient: null\npush_reason: ""\n---\n',
    ];
    const examples = path.resolve(import.meta.dirname, '../../examples/vault/KANBAN');
    for (const folder of fs.existsSync(examples) ? fs.readdirSync(examples) : []) {
      for (const name of fs.readdirSync(path.join(examples, folder))) {
        if (name.endsWith('.md')) texts.push(fs.readFileSync(path.join(examples, folder, name), 'utf8'));
      }
    }
    let checked = 0;
    for (const t of texts) {
      const data = parseFrontMatter(t).data;
      const zod = cardSchema.safeParse(data);
      if (!zod.success) continue;
      checked += 1;
      const fast = cardFastPath(data);
      expect(fast, t).toBeDefined();
      expect(exact(fast)).toEqual(exact(zod.data));
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('makes new lists and a new inputs object, as zod does (no aliasing of the parsed front matter)', () => {
    const data: Record<string, unknown> = { function: 'f', request: 'r', created: '2026-08-20', origin: 'o', paths: ['a.md'], inputs: { brief: ['b.md'] } };
    const fast = cardFastPath(data)!;
    expect(fast.paths).not.toBe(data.paths);
    expect(fast.inputs).not.toBe(data.inputs);
    expect(fast.inputs!.brief).not.toBe((data.inputs as Record<string, unknown>).brief);
  });

  it('declines what is not a plain mapping', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { function: 'f', request: 'r', created: '2026-08-20', origin: 'o' });
    expect(cardFastPath(bare)).toBeUndefined();
  });
});
