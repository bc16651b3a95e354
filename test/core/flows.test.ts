import { describe, expect, it } from 'vitest';
import { awaitedCard, closestNames, editDistance, flowProblems, type FlowCard } from '../../src/core/flows.js';

const waits = (name: string, ...deps: string[]): FlowCard => ({ name, dependentTasks: deps.map((d) => `KANBAN/done/${d}`), place: 'pending' });
const at = (name: string, place: FlowCard['place'], director?: string): FlowCard => ({ name, dependentTasks: [], place, ...(director ? { director } : {}) });

describe('awaitedCard', () => {
  it.each([
    ['KANBAN/done/a.md', 'a.md'],
    ['KANBAN/done/', undefined],
    ['KANBAN/done/x/a.md', undefined],
    ['KANBAN/pending/a.md', undefined],
    ['notes/a.md', undefined],
  ])('%s -> %s', (value, expected) => expect(awaitedCard(value)).toBe(expected));
});

describe('editDistance', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
    ['2026-12-01-a.md', '2026-12-01-b.md', 1],
  ])('%s / %s = %d', (a, b, d) => expect(editDistance(a, b)).toBe(d));
  it('gives up past its limit', () => expect(editDistance('aaaaaaaa', 'bbbbbbbb', 2)).toBe(3));
});

describe('flowProblems: deaf', () => {
  it('a dependent_task naming a card in no folder is deaf, with the closest names', () => {
    const problems = flowProblems([
      waits('dir.md', '2026-12-01-extract-action-itmes.md'),
      at('2026-12-01-extract-action-items.md', 'pending', 'dir.md'),
      at('2026-12-01-other.md', 'done'),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ card: 'dir.md', kind: 'deaf', suggestions: ['2026-12-01-extract-action-items.md'] });
    expect(problems[0]!.reason).toMatch(/^deaf: no card named 2026-12-01-extract-action-itmes\.md anywhere .*did you mean 2026-12-01-extract-action-items\.md\?/);
    expect(problems[0]!.reason).toContain('board card rewire dir.md --until CHILD');
  });

  it("names the director's own children first, even when far from the typo", () => {
    const [p] = flowProblems([waits('dir.md', 'zzz.md'), at('child-of-dir.md', 'done', 'dir.md'), at('zzy.md', 'done')]);
    expect(p!.suggestions).toEqual(['child-of-dir.md', 'zzy.md']);
  });

  it('says nothing it cannot back: no suggestion when nothing is close', () => {
    const [p] = flowProblems([waits('dir.md', 'completely-different-name.md'), at('x.md', 'done')]);
    expect(p!.suggestions).toBeUndefined();
    expect(p!.reason).not.toContain('did you mean');
  });

  it.each([['pending'], ['in-progress'], ['done']] as const)('a child in %s is not deaf (it may still close, or has)', (place) => {
    expect(flowProblems([waits('dir.md', 'c.md'), at('c.md', place)])).toEqual([]);
  });

  it('an archived child is deaf: it will never be in done/ again', () => {
    const [p] = flowProblems([waits('dir.md', 'c.md'), at('c.md', 'archive')]);
    expect(p!.reason).toMatch(/^deaf: its child c\.md is archived/);
  });

  it('a dependent_task under KANBAN/ but not in done/ is deaf; one outside KANBAN/ is an ordinary input', () => {
    const problems = flowProblems([
      { name: 'a.md', dependentTasks: ['KANBAN/pending/c.md'], place: 'pending' },
      { name: 'b.md', dependentTasks: ['notes/later.md'], place: 'pending' },
      at('c.md', 'pending'),
    ]);
    expect(problems.map((p) => [p.card, p.kind])).toEqual([['a.md', 'deaf']]);
  });

  it('only pending cards are judged: a card in progress has woken already', () => {
    expect(flowProblems([{ name: 'dir.md', dependentTasks: ['KANBAN/done/gone.md'], place: 'in-progress' }])).toEqual([]);
  });
});

describe('flowProblems: cycles', () => {
  it('A waits on B, B on A: both flagged, the chain named', () => {
    const problems = flowProblems([waits('a.md', 'b.md'), waits('b.md', 'a.md')]);
    expect(problems.map((p) => [p.card, p.kind, p.cycle])).toEqual([
      ['a.md', 'cycle', ['a.md', 'b.md']],
      ['b.md', 'cycle', ['b.md', 'a.md']],
    ]);
    expect(problems[0]!.reason).toContain('a.md → b.md → a.md');
  });

  it('a longer cycle, with a card hanging off it that is not part of it', () => {
    const problems = flowProblems([waits('a.md', 'b.md'), waits('b.md', 'c.md'), waits('c.md', 'a.md'), waits('d.md', 'a.md')]);
    expect(problems.map((p) => p.card)).toEqual(['a.md', 'b.md', 'c.md']);
    expect(problems[0]!.cycle).toEqual(['a.md', 'b.md', 'c.md']);
  });

  it('a card waiting for itself', () => {
    const [p] = flowProblems([waits('a.md', 'a.md')]);
    expect(p).toMatchObject({ card: 'a.md', kind: 'cycle' });
    expect(p!.reason).toContain('waits for itself');
  });

  it('a chain that ends in a card in progress, or in done/, is no cycle', () => {
    expect(flowProblems([waits('a.md', 'b.md'), waits('b.md', 'c.md'), at('c.md', 'in-progress')])).toEqual([]);
    expect(flowProblems([waits('a.md', 'b.md'), at('b.md', 'done')])).toEqual([]);
  });

  it('a chain of 20000 pending cards closed into a loop is found without overflowing the stack', () => {
    const n = 20_000;
    const cards = Array.from({ length: n }, (_, i) => waits(`c${i}.md`, `c${(i + 1) % n}.md`));
    const problems = flowProblems(cards);
    expect(problems).toHaveLength(n);
  });
});

describe('closestNames', () => {
  it('at most three, nearest first', () => {
    expect(closestNames('abcd.md', [], ['abce.md', 'abcf.md', 'abxy.md', 'abcd1.md', 'zzzz.md'])).toEqual(['abcd1.md', 'abce.md', 'abcf.md']);
  });
});
