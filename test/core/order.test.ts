import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dispatchOrder, firstInDispatchOrder } from '../../src/core/order.js';

const names = (items: { card: string }[]) => items.map((i) => i.card);

describe('dispatchOrder', () => {
  it('puts urgent first, then oldest created, then file name', () => {
    const items = [
      { card: 'd.md', created: '2026-01-01 10:00' },
      { card: 'c.md', created: '2026-01-03', priority: 'urgent' },
      { card: 'b.md', created: '2026-01-01 09:00', priority: 'normal' },
      { card: 'a.md', created: '2026-01-02T00:00:00Z', priority: 'urgent' },
      { card: 'e.md', created: '2026-01-01 10:00', priority: null },
    ];
    expect(names(dispatchOrder(items))).toEqual(['a.md', 'c.md', 'b.md', 'd.md', 'e.md']);
  });

  it.each([
    ['offsets are honoured', [{ card: 'x', created: '2026-01-01T10:00:00+02:00' }, { card: 'y', created: '2026-01-01T09:00:00Z' }], ['x', 'y']],
    ['date-only is midnight local', [{ card: 'x', created: '2026-01-01 00:01' }, { card: 'y', created: '2026-01-01' }], ['y', 'x']],
    ['seconds and fractions count', [{ card: 'x', created: '2026-01-01T00:00:00.500Z' }, { card: 'y', created: '2026-01-01T00:00:00.400Z' }], ['y', 'x']],
    ['same moment: by name', [{ card: 'b', created: '2026-01-01T00:00:00Z' }, { card: 'a', created: '2026-01-01 00:00' }], ['a', 'b']],
    ['unparseable created falls back to name', [{ card: 'b', created: 'soon' }, { card: 'a', created: '2026-01-01' }], ['a', 'b']],
    ['priority other than urgent is normal', [{ card: 'b', created: '2026-01-02', priority: 'high' }, { card: 'a', created: '2026-01-01' }], ['a', 'b']],
  ])('%s', (_label, items, expected) => {
    expect(names(dispatchOrder(items))).toEqual(expected);
  });

  it('does not mutate its input and keeps extra fields', () => {
    const items = [
      { card: 'b', created: '2026-01-02', extra: 1 },
      { card: 'a', created: '2026-01-01', extra: 2 },
    ];
    const out = dispatchOrder(items);
    expect(names(items)).toEqual(['b', 'a']);
    expect(out).toEqual([
      { card: 'a', created: '2026-01-01', extra: 2 },
      { card: 'b', created: '2026-01-02', extra: 1 },
    ]);
  });

  it('handles an empty list', () => {
    expect(dispatchOrder([])).toEqual([]);
  });
});

describe('firstInDispatchOrder', () => {
  const item = fc.record({
    created: fc.constantFrom('2026-01-01', '2026-01-01 09:00', '2026-01-01T09:00:00Z', '2026-01-01T10:00:00+02:00', '2026-01-02', '2025-12-31 23:59'),
    priority: fc.constantFrom(undefined, null, 'normal', 'urgent'),
  });
  const board = fc.array(item, { maxLength: 40 }).map((items) => items.map((i, n) => ({ ...i, card: `card-${(n * 7919) % 1000}.md` })));

  it('picks what a full sort puts first, in that order, and leaves exactly the others', () => {
    fc.assert(
      fc.property(board, fc.integer({ min: 0, max: 45 }), (items, limit) => {
        const { first, rest } = firstInDispatchOrder(items, limit);
        const sorted = dispatchOrder(items);
        expect(names(first)).toEqual(names(sorted.slice(0, limit)));
        expect(names(rest).sort()).toEqual(names(sorted.slice(limit)).sort());
      }),
      { numRuns: 1000 },
    );
  });
});
