import { describe, expect, it } from 'vitest';
import { listChildren } from '../../src/card/children.js';
import { CardRefused } from '../../src/card/context.js';
import { rewireCard } from '../../src/card/rewire.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { snapshotTree } from '../helpers/vault.js';
import { board, ctx, pendingCard, readVault, workerEnv } from './fixtures.js';

const data = (text: string) => parseFrontMatter(text).data;

/** A director asleep in pending/ on `dependent_task` (as yield leaves it). */
const sleeping = (dependent: string, extra = '') =>
  pendingCard(`inputs:\n  notes: notes/a.md\n  dependent_task: ${dependent}\n${extra}`, '\n## Record\n- 2026-12-01 08:00\n    - human: card written.\n');

async function refusedUnchanged(root: string, run: () => Promise<unknown>, message: RegExp) {
  const before = snapshotTree(root);
  await expect(run()).rejects.toSatisfy((e: Error) => e instanceof CardRefused && message.test(e.message));
  expect(snapshotTree(root)).toEqual(before);
}

describe('board card rewire', () => {
  it('repairs a deaf director: dependent_task becomes its real child in done/, with a Record line, nothing else changed', async () => {
    const { layout, vault } = board({
      'KANBAN/pending/dir.md': sleeping('KANBAN/done/2026-12-01-extract-itmes.md', "blocked: '2026-12-01 kept as it is'"),
      'KANBAN/done/2026-12-01-extract-items.md': pendingCard('director: dir.md\nflow: weekly'),
    });
    const before = readVault(vault, 'KANBAN/pending/dir.md');
    const result = await rewireCard(ctx(layout), 'dir.md', '2026-12-01-extract-items.md');
    expect(result.message).toContain('the next round wakes it');
    const text = readVault(vault, 'KANBAN/pending/dir.md');
    expect(data(text).inputs).toEqual({ notes: 'notes/a.md', dependent_task: 'KANBAN/done/2026-12-01-extract-items.md' });
    expect(data(text).blocked).toBe('2026-12-01 kept as it is');
    expect(text).toContain('    - human: rewired: inputs.dependent_task was KANBAN/done/2026-12-01-extract-itmes.md, now KANBAN/done/2026-12-01-extract-items.md (its child 2026-12-01-extract-items.md, in done/).\n');
    expect(text).toContain('    - wiring self-check passed: the value names 2026-12-01-extract-items.md exactly.\n');
    // Every other line byte for byte: only the dependent_task line changed, and the Record grew.
    const changed = before.split('\n').filter((l) => !text.split('\n').includes(l));
    expect(changed).toEqual(['  dependent_task: KANBAN/done/2026-12-01-extract-itmes.md']);
  });

  it('breaks a cycle: A waits on B and B on A; A rewired to its own open child', async () => {
    const { layout, vault } = board({
      'KANBAN/pending/a.md': sleeping('KANBAN/done/b.md'),
      'KANBAN/pending/b.md': sleeping('KANBAN/done/a.md'),
      'KANBAN/pending/a-child.md': pendingCard('director: a.md\nflow: f'),
    });
    const result = await rewireCard(ctx(layout), 'a.md', 'a-child.md');
    expect(result.message).toContain('sleeps until a-child.md closes (now in pending/)');
    expect((data(readVault(vault, 'KANBAN/pending/a.md')).inputs as Record<string, string>).dependent_task).toBe('KANBAN/done/a-child.md');
  });

  it("refuses, writing nothing: a child that is not this card's, an unknown child, an archived one, a card not pending, a worker, no change", async () => {
    const { root, layout } = board({
      'KANBAN/pending/dir.md': sleeping('KANBAN/done/gone.md'),
      'KANBAN/pending/stray.md': pendingCard('director: other.md'),
      'KANBAN/archive/2026-11/old.md': pendingCard('director: dir.md'),
      'KANBAN/done/real.md': pendingCard('director: dir.md'),
      'KANBAN/done/closed-dir.md': sleeping('KANBAN/done/x.md'),
      'KANBAN/done/x.md': pendingCard('director: closed-dir.md'),
      'KANBAN/pending/ok.md': sleeping('KANBAN/done/real.md'),
    });
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'dir.md', 'stray.md'), /wiring self-check failed: stray\.md names "other\.md" as its director, not dir\.md/);
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'dir.md', 'nope.md'), /no card named nope\.md/);
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'dir.md', 'old.md'), /archived/);
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'dir.md', 'dir.md'), /cannot wait for its own card/);
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'closed-dir.md', 'x.md'), /cannot rewire closed-dir\.md: it is in done\//);
    await refusedUnchanged(root, () => rewireCard(ctx(layout, workerEnv(layout, 'dir.md')), 'dir.md', 'real.md'), /human's verb/);
    await refusedUnchanged(root, () => rewireCard(ctx(layout), 'ok.md', 'real.md'), /real\.md names "dir\.md"/);
  });
});

describe('board card children', () => {
  it("lists a director's children wherever they are, with their states, and marks the awaited one", async () => {
    const { layout } = board({
      'KANBAN/pending/dir.md': sleeping('KANBAN/done/step-2.md'),
      'KANBAN/done/step-1.md': pendingCard('director: dir.md\nflow: weekly'),
      'KANBAN/in-progress/step-2.md': pendingCard('director: dir.md\nflow: weekly'),
      'KANBAN/archive/2026-11/step-0.md': pendingCard('director: dir.md'),
      'KANBAN/pending/unrelated.md': pendingCard('director: other.md'),
      'KANBAN/pending/broken.md': '---\nfunction: [unclosed\n---\n',
    });
    const result = await listChildren(ctx(layout), 'dir.md');
    expect(result.awaits).toBe('KANBAN/done/step-2.md');
    expect(result.children.map((c) => [c.card, c.folder, c.awaited ?? false, c.flow ?? null])).toEqual([
      ['step-0.md', 'archive/2026-11', false, null],
      ['step-1.md', 'done', false, 'weekly'],
      ['step-2.md', 'in-progress', true, 'weekly'],
    ]);
  });

  it('a card with no children says so', async () => {
    const { layout } = board({ 'KANBAN/pending/p.md': pendingCard() });
    expect((await listChildren(ctx(layout), 'p.md')).children).toEqual([]);
  });
});
