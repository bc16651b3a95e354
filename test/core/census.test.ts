import { describe, expect, it } from 'vitest';
import { censusCard, inputPaths, isBlocked, isSafeVaultPath, type CensusContext } from '../../src/core/census.js';
import { cardSchema, type Card } from '../../src/schema/card.js';
import type { InputFact } from '../../src/core/types.js';

const card = (over: Record<string, unknown> = {}): Card =>
  cardSchema.parse({ function: 'write', request: 'a blog post', created: '2026-08-20', origin: 'human', ...over });

const ctx = (inputs: Record<string, InputFact> = {}, over: Partial<CensusContext> = {}): CensusContext => ({
  trustedOrigins: new Set(['human', 'scheduler']),
  maxAttempts: 3,
  inputs: new Map(Object.entries(inputs)),
  ...over,
});

const here = { exists: true, inside: true };
const missing = { exists: false, inside: true };
const outside = { exists: true, inside: false };

describe('isSafeVaultPath', () => {
  it.each([
    ['notes/a.md', true],
    ['a.md', true],
    ['./a.md', true],
    ['a/./b.md', true],
    ['a/../b.md', true],
    ['a/b/../../c.md', true],
    ['a//b.md', true],
    ['KANBAN/done/2026-08-20-x.md', true],
    ['dir/', true],
    ['', false],
    ['.', false],
    ['./', false],
    ['a/..', false], // the vault root itself
    ['..', false],
    ['../a.md', false],
    ['a/../../b.md', false],
    ['a/../../a/b.md', false], // climbs out before coming back
    ['/etc/passwd', false],
    ['//server/share', false],
    ['a\\b.md', false],
    ['..\\secret', false],
    ['C:/x.md', false],
    ['c:x.md', false],
    ['a\0b', false],
  ])('isSafeVaultPath(%j) = %s', (path, expected) => {
    expect(isSafeVaultPath(path)).toBe(expected);
  });
});

describe('isBlocked', () => {
  it.each([
    [undefined, false],
    [null, false],
    [false, false],
    ['', false],
    ['   ', false],
    ['2026-08-20 foreign origin', true],
  ])('blocked: %j -> %s', (blocked, expected) => {
    expect(isBlocked(card(blocked === undefined ? {} : { blocked }))).toBe(expected);
  });
});

describe('inputPaths', () => {
  it('flattens single values and lists, keeping the slot', () => {
    expect(inputPaths({ inputs: { dependent_task: 'KANBAN/done/a.md', sources: ['x.md', 'y/z.md'] } })).toEqual([
      { slot: 'dependent_task', path: 'KANBAN/done/a.md' },
      { slot: 'sources', path: 'x.md' },
      { slot: 'sources', path: 'y/z.md' },
    ]);
  });
  it.each([[undefined], [null], [{}]])('no inputs (%j) -> none', (inputs) => {
    expect(inputPaths({ inputs })).toEqual([]);
  });
});

describe('censusCard', () => {
  it.each<[string, Record<string, unknown>, Record<string, InputFact>, ReturnType<typeof censusCard>]>([
    ['a plain card is eligible', {}, {}, { kind: 'eligible' }],
    ['existing inputs are eligible', { inputs: { a: 'x.md', b: ['y.md'] } }, { 'x.md': here, 'y.md': here }, { kind: 'eligible' }],
    ['blocked first, before everything', { blocked: '2026-01-01 because', attempts: 9, origin: 'mallory', inputs: { a: '../x' } }, {}, { kind: 'already-blocked', reason: 'blocked: 2026-01-01 because' }],
    ['attempts at max -> block', { attempts: 3 }, {}, { kind: 'block', reason: 'attempts exhausted (3 of max_attempts 3)' }],
    ['attempts over max -> block', { attempts: 7 }, {}, { kind: 'block', reason: 'attempts exhausted (7 of max_attempts 3)' }],
    ['attempts below max are fine', { attempts: 2 }, {}, { kind: 'eligible' }],
    ['attempts checked before origin', { attempts: 3, origin: 'mallory' }, {}, { kind: 'block', reason: 'attempts exhausted (3 of max_attempts 3)' }],
    ['foreign origin -> block', { origin: 'mallory' }, {}, { kind: 'block', reason: 'foreign origin "mallory" (not in trusted_origins)' }],
    ['origin compared after normalizing, as function is (issue 15)', { origin: 'Human' }, {}, { kind: 'eligible' }],
    ['a near origin is still foreign', { origin: 'humans' }, {}, { kind: 'block', reason: 'foreign origin "humans" (not in trusted_origins)' }],
    ['origin checked before inputs', { origin: 'mallory', inputs: { a: '../x' } }, {}, { kind: 'block', reason: 'foreign origin "mallory" (not in trusted_origins)' }],
    ['input climbing out -> block as suspicious', { inputs: { source: '../secret.md' } }, {}, { kind: 'block', reason: 'suspicious input source: "../secret.md" leads outside the vault' }],
    ['absolute input -> suspicious', { inputs: { source: ['ok.md', '/etc/passwd'] } }, { 'ok.md': here }, { kind: 'block', reason: 'suspicious input source: "/etc/passwd" leads outside the vault' }],
    ['input whose link leads out -> suspicious', { inputs: { source: 'link.md' } }, { 'link.md': outside }, { kind: 'block', reason: 'suspicious input source: "link.md" leads outside the vault' }],
    ['suspicious beats missing, whatever the order', { inputs: { a: 'missing.md', b: '../x' } }, {}, { kind: 'block', reason: 'suspicious input b: "../x" leads outside the vault' }],
    ['missing input -> wait', { inputs: { dependent_task: 'KANBAN/done/child.md' } }, { 'KANBAN/done/child.md': missing }, { kind: 'wait', reason: 'waiting for input dependent_task: KANBAN/done/child.md does not exist yet' }],
    ['unknown input (no fact) -> wait', { inputs: { a: 'x.md' } }, {}, { kind: 'wait', reason: 'waiting for input a: x.md does not exist yet' }],
    ['first missing input in order is named', { inputs: { a: ['x.md', 'y.md', 'z.md'] } }, { 'x.md': here }, { kind: 'wait', reason: 'waiting for input a: y.md does not exist yet' }],
    ['a recipient does not matter to the census', { recipient: 'Ana' }, {}, { kind: 'eligible' }],
  ])('%s', (_label, over, inputs, expected) => {
    expect(censusCard(card(over), ctx(inputs))).toEqual(expected);
  });

  it('uses the trusted set it is given (a director name)', () => {
    expect(censusCard(card({ origin: 'editor-in-chief' }), ctx({}, { trustedOrigins: new Set(['editor-in-chief']) }))).toEqual({ kind: 'eligible' });
  });

  it('honours max_attempts from the context', () => {
    expect(censusCard(card({ attempts: 3 }), ctx({}, { maxAttempts: 5 }))).toEqual({ kind: 'eligible' });
    expect(censusCard(card({ attempts: 0 }), ctx({}, { maxAttempts: 0 }))).toEqual({ kind: 'block', reason: 'attempts exhausted (0 of max_attempts 0)' });
  });
});
