import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockCard } from '../../src/card/block.js';
import { closeCard } from '../../src/card/close.js';
import { BoardError } from '../../src/errors.js';
import { failCard } from '../../src/card/fail.js';
import { newCard } from '../../src/card/new.js';
import { noteCard } from '../../src/card/note.js';
import { unblockCard } from '../../src/card/unblock.js';
import { yieldCard } from '../../src/card/yield.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { cardSchema } from '../../src/schema/card.js';
import { moveCardLocked, withCardLock } from '../../src/vault/card-lock.js';
import { editCard } from '../../src/vault/edit-card.js';
import type { VaultLayout } from '../../src/vault/layout.js';
import { snapshotTree } from '../helpers/vault.js';
import { CLAIM, board, ctx, directorCard, pendingCard, where } from './fixtures.js';

const NAMES = ['a.md', 'b.md', 'issue.md'] as const;
const text = fc.constantFrom('progress: drafted "Kanban"', 'reason: the notes are empty', 'ünïcödé: “quotes” — and: colons', 'multi\nline', '#not a comment', "it's 'quoted'");

const step = fc.oneof(
  fc.record({ verb: fc.constant('claim' as const), card: fc.constantFrom(...NAMES) }),
  fc.record({ verb: fc.constant('note' as const), card: fc.constantFrom(...NAMES), text, stale: fc.boolean() }),
  fc.record({ verb: fc.constant('close' as const), card: fc.constantFrom(...NAMES), how: fc.constantFrom('path', 'empty', 'none', 'missing'), stale: fc.boolean() }),
  fc.record({ verb: fc.constant('fail' as const), card: fc.constantFrom(...NAMES), text, stale: fc.boolean() }),
  fc.record({ verb: fc.constant('block' as const), card: fc.constantFrom(...NAMES), text }),
  fc.record({ verb: fc.constant('unblock' as const), card: fc.constantFrom(...NAMES) }),
  fc.record({ verb: fc.constant('child' as const), request: text }),
  fc.record({ verb: fc.constant('yield' as const), until: fc.constantFrom('a.md', 'b.md', 'child') }),
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function folderOf(layout: VaultLayout, name: string): string | undefined {
  return where(layout).get(name)?.[0];
}

/** The dispatcher's claim, as a tick does it: under the card's lock, a move, then the stamp. */
async function claim(layout: VaultLayout, name: string): Promise<void> {
  if (folderOf(layout, name) !== 'pending') return;
  const data = parseFrontMatter(fs.readFileSync(path.join(layout.pending, name), 'utf8')).data;
  if (data.blocked) return;
  await withCardLock(layout.kanban, name, 'claim', {}, async (lock) => {
    await moveCardLocked(lock, path.join(layout.pending, name), path.join(layout.inProgress, name));
    await editCard(path.join(layout.inProgress, name), { fields: { agent: name === 'issue.md' ? 'chief' : 'writer', claimed: CLAIM, model: 'm' }, lock }, new Date());
  });
}

describe('no sequence of verbs breaks a card', () => {
  it('every card stays parseable, keeps its fields, lives in exactly one folder, and a refusal writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps: Step[]) => {
        const { root, layout } = board({
          'KANBAN/pending/a.md': pendingCard(),
          'KANBAN/pending/b.md': pendingCard('priority: urgent\ninputs:\n  notes: notes/a.md', '\nKeep it short.\n\n## Record\n- 2026-12-01 09:00\n    - human: card written.\n\n## After\n\ntrailing section\n'),
          'KANBAN/pending/issue.md': directorCard().replace(/agent: chief\nclaimed: .*\nmodel: fake-medium\n/, ''),
          'out/x.md': 'x\n',
        });
        const original = new Map(NAMES.map((n) => [n, parseFrontMatter(fs.readFileSync(path.join(layout.pending, n), 'utf8')).data]));
        let lastChild: string | undefined;
        for (const s of steps) {
          const target = 'card' in s ? s.card : 'issue.md';
          const env = (stale: boolean) => ({ BOARD_CARD: path.join(layout.inProgress, target), BOARD_CLAIM: stale ? 'stale-claim' : CLAIM });
          const before = snapshotTree(root);
          try {
            if (s.verb === 'claim') await claim(layout, s.card);
            else if (s.verb === 'note') await noteCard(ctx(layout, env(s.stale)), s.card, s.text);
            else if (s.verb === 'close') {
              await closeCard(ctx(layout, env(s.stale)), s.card, s.how === 'path' ? { paths: ['out/x.md'] } : s.how === 'empty' ? { paths: [], empty: 'nothing' } : s.how === 'missing' ? { paths: ['out/nope.md'] } : { paths: [] });
            } else if (s.verb === 'fail') await failCard(ctx(layout, env(s.stale)), s.card, s.text);
            else if (s.verb === 'block') await blockCard(ctx(layout), s.card, s.text);
            else if (s.verb === 'unblock') await unblockCard(ctx(layout), s.card);
            else if (s.verb === 'child') lastChild = (await newCard(ctx(layout, env(false)), { function: 'write', request: s.request, flow: 'f', director: 'issue.md' })).card;
            else if (s.verb === 'yield') await yieldCard(ctx(layout, env(false)), 'issue.md', s.until === 'child' ? (lastChild ?? 'none.md') : s.until);
          } catch (error) {
            if (!(error instanceof BoardError)) throw error;
            expect(snapshotTree(root), `${s.verb} refused (${error.message}) but wrote`).toEqual(before);
          }
          // Invariants after every step.
          for (const [name, folders] of where(layout)) {
            expect(folders, `${name} in ${folders.join(' and ')}`).toHaveLength(1);
            const file = path.join(layout.kanban, folders[0]!, name);
            const parsed = cardSchema.safeParse(parseFrontMatter(fs.readFileSync(file, 'utf8')).data);
            expect(parsed.success, `${name} unparseable after ${s.verb}`).toBe(true);
          }
          for (const [name, data] of original) {
            const folder = folderOf(layout, name);
            expect(folder, `${name} vanished after ${s.verb}`).toBeDefined();
            const now = parseFrontMatter(fs.readFileSync(path.join(layout.kanban, folder!, name), 'utf8')).data;
            for (const key of ['function', 'request', 'created', 'origin', 'priority', 'paths', 'flow', 'director'] as const) {
              if (key === 'paths' && folder === 'done') continue;
              expect(now[key], `${name}.${key} after ${s.verb}`).toEqual(data[key]);
            }
            const inputs = { ...((now.inputs as Record<string, unknown>) ?? {}) };
            delete inputs.dependent_task;
            expect(inputs, `${name}.inputs after ${s.verb}`).toEqual(data.inputs ?? {});
            expect(typeof now.attempts).toBe('number');
          }
        }
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 40 },
    );
  });
});
