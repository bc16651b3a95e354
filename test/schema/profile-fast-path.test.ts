import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exact } from '../helpers/exact.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { profileFastPath } from '../../src/schema/profile-fast-path.js';
import { profileSchema } from '../../src/schema/profile.js';

/** Which of the output's lists and objects are the input's own (zod copies the ones it validates). */
function sharing(out: Record<string, unknown>, input: Record<string, unknown>): string[] {
  return Object.keys(out).filter((key) => typeof out[key] === 'object' && out[key] !== null && out[key] === input[key]);
}

const FIELDS = Object.keys(profileSchema.def.shape);
const REQUIRED = ['name', 'version', 'description', 'function', 'handles'];
const OPTIONAL = FIELDS.filter((f) => !REQUIRED.includes(f));

const text = fc.constantFrom('', 'a', 'writes topic 3 reports', ' ', 'ä', 'false', 'null', '7');
const list = fc.oneof(fc.array(text, { maxLength: 3 }), fc.constant([1]), fc.constant(['a', , 'b']), fc.constant([null]), fc.constant([]));
const anyValue = fc.oneof(
  text,
  list,
  fc.constantFrom(undefined, null, true, false, 0, -0, 1, 2.5, -1, Number.NaN, Infinity, 2 ** 60, 'standard', 'advanced', 'Standard', 'image', 'video'),
  fc.constant({ max_tokens: 10 }),
  fc.constant(JSON.parse('{"__proto__": "x"}') as unknown),
  fc.constant(new Date('2026-08-20T00:00:00Z')),
);
/** A port (`inputs`, `outputs`): its fields in any order, some absent, now and then one unknown. */
const port = fc
  .record(
    {
      name: fc.constantFrom('brief', 'report'),
      type: fc.constantFrom('md', 'csv'),
      transport: fc.constantFrom('file', 'inline'),
      wireable: fc.boolean(),
      default: fc.constantFrom(null, 'x', 3, ['a'], { k: 1 }),
      description: fc.constantFrom('the brief', ''),
      format: fc.constantFrom('utf-8'),
    },
    { requiredKeys: ['name'], noNullPrototype: true },
  )
  .map((p) => Object.fromEntries(Object.entries(p).reverse()));
/** Each field: its valid values mostly, its near misses and any value now and then. */
function mostly(valid: fc.Arbitrary<unknown>, nearMisses: unknown[] = []): fc.Arbitrary<unknown> {
  const misses = nearMisses.length > 0 ? fc.constantFrom(...nearMisses) : anyValue;
  return fc.oneof({ weight: 30, arbitrary: valid }, { weight: 2, arbitrary: misses }, { weight: 1, arbitrary: anyValue });
}
const phrases = fc.oneof(fc.constantFrom('topic 3 report', ''), fc.array(fc.constantFrom('topic 3 report', 'weekly digest', ''), { minLength: 1, maxLength: 3 }));
const fieldValue: Record<string, fc.Arbitrary<unknown>> = {
  name: mostly(fc.constantFrom('writer', 'profile-7', '7up'), ['Writer', '-x', 'a_b', '']),
  version: mostly(fc.constantFrom(1, 2.5, '1.0', 0, -0, 10 ** 21), ['', Number.NaN, Infinity, -Infinity]),
  description: mostly(fc.constantFrom('Writes reports.'), ['']),
  function: mostly(fc.constantFrom('write-report', 'Write Reports'), ['']),
  handles: mostly(phrases, [[], '', [''], ['a', 1]]),
  refuses: mostly(phrases, [[], '', ['a', null]]),
  inputs: mostly(fc.array(port, { maxLength: 3 }), [[{ type: 'md' }], [{ name: '' }], [{ name: 'b', wireable: 'yes' }], [null], { name: 'brief' }, [{ name: 'b', type: null }]]),
  outputs: mostly(fc.array(port, { maxLength: 2 }), [[{ name: 'r', description: 3 }], [JSON.parse('{"name": "r", "__proto__": "x"}')]]),
  guarantees: mostly(fc.array(fc.constantFrom('cites sources', ''), { maxLength: 2 }), [[1], 'one page']),
  model_capacity: mostly(fc.constantFrom('minimum', 'standard', 'advanced'), ['huge', 'Standard', '']),
  model_modality: mostly(fc.constantFrom('text', 'audio', 'image'), ['video', 'Text']),
  harness: mostly(fc.constantFrom('claude-code'), ['', 3]),
  budget: mostly(fc.constant({ max_usd: 1 })),
  record: mostly(fc.constant({ owner: 'me' })),
  skills: mostly(fc.array(fc.constantFrom('write-report', 'summarize'), { maxLength: 3 }), [[''], 'write-report', [2]]),
  profiles: mostly(fc.array(fc.constantFrom('writer'), { maxLength: 2 })),
  failure_policy: mostly(fc.constantFrom('retry', 'escalate')),
};
const profile = fc
  .record(
    {
      // Mostly workers: skills present, no director fields.
      present: fc.oneof(
        { weight: 3, arbitrary: fc.subarray(['refuses', 'inputs', 'outputs', 'guarantees', 'model_capacity', 'model_modality', 'harness'], { maxLength: 6 }).map((p) => [...p, 'skills']) },
        { weight: 1, arbitrary: fc.subarray(OPTIONAL, { maxLength: 6 }) },
      ),
      // Now and then one required field is missing.
      dropped: fc.integer({ min: 0, max: 49 }).map((n) => REQUIRED[n]),
      values: fc.record(Object.fromEntries(FIELDS.map((f) => [f, fieldValue[f]!]))),
      extra: fc.dictionary(fc.constantFrom('tags', 'zzz', '7', 'constructor', 'hasOwnProperty', 'rank'), anyValue, { maxKeys: 2 }),
      protoKey: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      order: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
    },
    { noNullPrototype: true },
  )
  .map(({ present, dropped, values, extra, protoKey, order }) => {
    const fields = [...REQUIRED.filter((f) => f !== dropped), ...new Set(present)];
    const entries: [string, unknown][] = [...fields.map((f) => [f, values[f]] as [string, unknown]), ...Object.entries(extra)];
    // Written in a shuffled order: zod's output order must not depend on the profile's.
    entries.sort((a, b) => order[entries.indexOf(a) % 30]! - order[entries.indexOf(b) % 30]!);
    const data: Record<string, unknown> = {};
    for (const [k, v] of entries) data[k] = v;
    if (protoKey) Object.defineProperty(data, '__proto__', { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    return data;
  });

describe('profileFastPath', () => {
  it('returns exactly what zod returns, or declines (generated profiles)', () => {
    let accepted = 0;
    let validWorkers = 0;
    fc.assert(
      fc.property(profile, (data) => {
        const fast = profileFastPath(data);
        const zod = profileSchema.safeParse(data);
        const plain = !['budget', 'record', 'profiles', 'failure_policy'].some((k) => k in data);
        if (zod.success && plain) validWorkers += 1;
        if (fast === undefined) return;
        accepted += 1;
        expect(zod.success, 'the fast path accepted what zod rejects').toBe(true);
        expect(exact(fast)).toEqual(exact(zod.data));
        expect(sharing(fast, data)).toEqual(sharing(zod.data as Record<string, unknown>, data));
      }),
      { numRuns: 20000 },
    );
    // Not vacuous: most valid plain workers take the fast path.
    expect(validWorkers).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(validWorkers * 0.8);
  });

  it('takes every plain worker profile the examples ship, as zod reads them', () => {
    const texts = [
      '---\nname: writer\nversion: 1\ndescription: Writes reports.\nfunction: write-report\nhandles: [topic 3 report, weekly digest]\nrefuses: [secret topic]\nskills: [write-report]\nmodel_capacity: standard\n---\n',
      '---\nname: note-taker\nversion: "2.1"\ndescription: Takes notes.\nfunction: Take Notes\nhandles: meeting notes\nguarantees: [one page]\nskills: [summarize]\nmodel_modality: audio\nharness: claude-code\ntags: [x]\n---\n',
    ];
    const root = path.resolve(import.meta.dirname, '../..');
    const shipped = (dir: string): string[] =>
      fs.existsSync(dir)
        ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('PROFILE.md')).map((f) => path.join(dir, f))
        : [];
    for (const file of shipped(path.join(root, 'examples'))) texts.push(fs.readFileSync(file, 'utf8'));
    let workers = 0;
    for (const t of texts) {
      const data = parseFrontMatter(t).data;
      const zod = profileSchema.safeParse(data);
      if (!zod.success || !('skills' in data) || ['budget', 'record'].some((k) => k in data)) continue;
      workers += 1;
      const fast = profileFastPath(data);
      expect(fast, t).toBeDefined();
      expect(exact(fast)).toEqual(exact(zod.data));
    }
    // The two above and the four plain workers of examples/vault (the others carry a budget or direct).
    expect(workers).toBeGreaterThanOrEqual(6);
  });

  it('makes new lists and ports, as zod does (no aliasing of the parsed front matter)', () => {
    const data: Record<string, unknown> = { name: 'w', version: 1, description: 'd', function: 'f', handles: ['h'], refuses: ['r'], inputs: [{ name: 'i' }], outputs: [{ name: 'o' }], guarantees: ['g'], skills: ['s'] };
    const fast = profileFastPath(data)!;
    for (const key of ['handles', 'refuses', 'inputs', 'outputs', 'guarantees', 'skills'] as const) {
      expect(fast[key]).toEqual(data[key]);
      expect(fast[key]).not.toBe(data[key]);
    }
    expect(fast.inputs![0]).not.toBe((data.inputs as unknown[])[0]);
  });

  it('leaves directors, and what is not a plain mapping, to zod', () => {
    const director = { name: 'd', version: 1, description: 'd', function: 'f', handles: ['h'], profiles: ['w'], failure_policy: 'escalate' };
    expect(profileSchema.safeParse(director).success).toBe(true);
    expect(profileFastPath(director)).toBeUndefined();
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { name: 'w', version: 1, description: 'd', function: 'f', handles: ['h'], skills: ['s'] });
    expect(profileFastPath(bare)).toBeUndefined();
  });
});
