import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveCards } from '../../src/card/archive.js';
import { blockCard } from '../../src/card/block.js';
import { closeCard } from '../../src/card/close.js';
import { CardRefused } from '../../src/card/context.js';
import { failCard } from '../../src/card/fail.js';
import { findCard } from '../../src/card/find-card.js';
import { newCard, slugOf } from '../../src/card/new.js';
import { noteCard } from '../../src/card/note.js';
import { unblockCard } from '../../src/card/unblock.js';
import { yieldCard } from '../../src/card/yield.js';
import { UsageError } from '../../src/errors.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { cardSchema } from '../../src/schema/card.js';
import { snapshotTree } from '../helpers/vault.js';
import { CLAIM, NOW, board, claimedCard, ctx, directorCard, has, pendingCard, readVault, workerEnv } from './fixtures.js';

const data = (text: string) => parseFrontMatter(text).data;

/** A refusal leaves every byte of the board as it was. */
async function refusedUnchanged(root: string, run: () => Promise<unknown>, message: RegExp, kind: typeof CardRefused | typeof UsageError = CardRefused) {
  const before = snapshotTree(root);
  await expect(run()).rejects.toSatisfy((e: Error) => e instanceof kind && message.test(e.message));
  expect(snapshotTree(root)).toEqual(before);
}

describe('board card new', () => {
  it('writes a valid card into pending/ named from the date and the request', async () => {
    const { layout, vault } = board();
    const result = await newCard(ctx(layout), { function: 'write', request: 'Write a blog post draft, about Kanban!', inputs: ['notes=notes/a.md'], priority: 'urgent' });
    expect(result.card).toBe('2026-12-02-write-a-blog-post-draft-about-kanban.md');
    expect(result.file).toBe(path.join(layout.pending, result.card));
    const text = readVault(vault, `KANBAN/pending/${result.card}`);
    expect(cardSchema.parse(data(text))).toMatchObject({ function: 'write', origin: 'human', created: NOW.toISOString(), priority: 'urgent', inputs: { notes: 'notes/a.md' }, paths: [], attempts: 0 });
    expect(Object.keys(data(text))).toEqual(['function', 'request', 'created', 'origin', 'priority', 'inputs', 'paths', 'attempts']);
    expect(text).toContain('## Record\n\n- 2026-12-02 10:00\n    - human: card written: "Write a blog post draft, about Kanban!"\n    - input notes: notes/a.md.\n');
  });

  it('never reuses a name from any state folder: -2, -3 …', async () => {
    const { layout } = board({ 'KANBAN/done/2026-12-02-count-words.md': pendingCard() });
    const a = await newCard(ctx(layout), { function: 'count', request: 'Count words' });
    const b = await newCard(ctx(layout), { function: 'count', request: 'count   WORDS' });
    expect([a.card, b.card]).toEqual(['2026-12-02-count-words-2.md', '2026-12-02-count-words-3.md']);
  });

  it('cuts the slug on a word near 50 characters', () => {
    const slug = slugOf('Summarize every single meeting note of the whole quarter into one page please');
    expect(slug.length).toBeLessThanOrEqual(50);
    expect(slug).toBe('summarize-every-single-meeting-note-of-the-whole');
    expect(slugOf('!!!')).toBe('card');
  });

  it('refuses an input outside the vault, and flow without director', async () => {
    const { root, layout } = board();
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', inputs: ['notes=../secrets.md'] }), /outside the vault/);
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', inputs: ['notes'] }), /name=path/, UsageError);
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', flow: 'f' }), /--flow and --director go together/, UsageError);
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', priority: 'asap' }), /normal or urgent/, UsageError);
  });

  it('from a director: origin is its profile, the child names its director, and only one child at a time', async () => {
    const { root, layout, vault } = board({ 'KANBAN/in-progress/issue.md': directorCard() });
    const env = workerEnv(layout, 'issue.md');
    const child = await newCard(ctx(layout, env), { function: 'write', request: 'Write a blog post draft', inputs: ['notes=notes/a.md'], flow: 'weekly', director: env.BOARD_CARD!, recipient: 'writer' });
    expect(data(readVault(vault, `KANBAN/pending/${child.card}`))).toMatchObject({ origin: 'chief', flow: 'weekly', director: 'issue.md', recipient: 'writer' });
    await refusedUnchanged(root, () => newCard(ctx(layout, env), { function: 'write', request: 'Another', flow: 'weekly', director: 'issue.md' }), /still open; a director creates ONE child/);
    await refusedUnchanged(root, () => newCard(ctx(layout, env), { function: 'write', request: 'Other', origin: 'human' }), /has origin chief/);
  });

  it('refuses a worker (skills) creating cards, and a stale director', async () => {
    const { root, layout } = board({ 'KANBAN/in-progress/post.md': claimedCard(), 'KANBAN/in-progress/issue.md': directorCard() });
    await refusedUnchanged(root, () => newCard(ctx(layout, workerEnv(layout, 'post.md')), { function: 'w', request: 'r' }), /writer is a worker/);
    await refusedUnchanged(root, () => newCard(ctx(layout, workerEnv(layout, 'issue.md', '2026-12-02T08:00:00.000Z')), { function: 'w', request: 'r' }), /no longer held/);
  });

  it('refuses a director card that does not exist or is closed', async () => {
    const { root, layout } = board({ 'KANBAN/done/old.md': pendingCard() });
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', flow: 'f', director: 'nope.md' }), /no card named nope\.md/);
    await refusedUnchanged(root, () => newCard(ctx(layout), { function: 'w', request: 'r', flow: 'f', director: 'old.md' }), /is closed/);
  });
});

describe('board card note', () => {
  it('appends a milestone by the working profile, nothing else changes', async () => {
    const { layout, vault } = board({ 'KANBAN/in-progress/post.md': claimedCard() });
    const before = readVault(vault, 'KANBAN/in-progress/post.md');
    await noteCard(ctx(layout, workerEnv(layout, 'post.md')), 'post.md', 'admission passed; mounting write-in-own-voice for "Kanban".');
    const after = readVault(vault, 'KANBAN/in-progress/post.md');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe('\n## Record\n\n- 2026-12-02 10:00\n    - writer: admission passed; mounting write-in-own-voice for "Kanban".\n');
  });

  it('refuses a stale claim, another card, a closed card and an empty milestone', async () => {
    const { root, layout } = board({ 'KANBAN/in-progress/post.md': claimedCard(), 'KANBAN/in-progress/other.md': claimedCard(), 'KANBAN/done/old.md': pendingCard() });
    await refusedUnchanged(root, () => noteCard(ctx(layout, workerEnv(layout, 'post.md', '2026-12-02T08:00:00.000Z')), 'post.md', 'm'), /claim .* is no longer held/);
    await refusedUnchanged(root, () => noteCard(ctx(layout, workerEnv(layout, 'post.md')), 'other.md', 'm'), /was given post\.md/);
    await refusedUnchanged(root, () => noteCard(ctx(layout), 'old.md', 'm'), /it is in done\//);
    await refusedUnchanged(root, () => noteCard(ctx(layout), 'post.md', '  '), /milestone is empty/, UsageError);
  });
});

describe('board card close', () => {
  it('fills paths, sets closed, writes the closing line and moves to done/', async () => {
    const { layout, vault } = board({ 'KANBAN/in-progress/post.md': claimedCard(), 'drafts/kanban.md': '# Kanban\n' });
    const result = await closeCard(ctx(layout, workerEnv(layout, 'post.md')), path.join(layout.inProgress, 'post.md'), { paths: ['drafts/kanban.md', path.join(vault, 'drafts/kanban.md')] });
    expect(result.state).toBe('done');
    expect(has(vault, 'KANBAN/in-progress/post.md')).toBe(false);
    const text = readVault(vault, 'KANBAN/done/post.md');
    expect(data(text)).toMatchObject({ paths: ['drafts/kanban.md'], closed: NOW.toISOString(), agent: 'writer', claimed: CLAIM });
    expect(text).toContain('    - writer: closed with drafts/kanban.md.\n    - Card closed.\n');
  });

  it('closes empty only with a justification, recorded as a legitimate exception', async () => {
    const { root, layout, vault } = board({ 'KANBAN/in-progress/post.md': claimedCard() });
    await refusedUnchanged(root, () => closeCard(ctx(layout), 'post.md', { paths: [] }), /needs --empty "justification"/, UsageError);
    await closeCard(ctx(layout), 'post.md', { paths: [], empty: 'no notes this week' });
    const text = readVault(vault, 'KANBAN/done/post.md');
    expect(data(text).paths).toEqual([]);
    expect(text).toContain('    - human: closed empty (legitimate exception): no notes this week\n');
  });

  it('refuses a path that does not exist, that leaves the vault, or that is a card', async () => {
    const { root, layout } = board({ 'KANBAN/in-progress/post.md': claimedCard() });
    fs.writeFileSync(path.join(root, 'outside.md'), 'x');
    fs.symlinkSync(path.join(root, 'outside.md'), path.join(layout.root, 'link.md'));
    const c = ctx(layout, workerEnv(layout, 'post.md'));
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: ['drafts/missing.md'] }), /does not exist in the vault/);
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: ['../outside.md'] }), /outside the vault/);
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: [path.join(root, 'outside.md')] }), /outside the vault/);
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: ['link.md'] }), /leads outside the vault/);
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: ['KANBAN/in-progress/post.md'] }), /never lives on the board/);
    await refusedUnchanged(root, () => closeCard(c, 'post.md', { paths: ['notes/a.md'], empty: 'x' }), /exclude each other/, UsageError);
  });

  it('refuses a card that is not in-progress, and a stale worker whose card another worker now holds', async () => {
    const { root, layout } = board({ 'KANBAN/pending/p.md': pendingCard(), 'KANBAN/in-progress/post.md': claimedCard('writer', '', '2026-12-02T09:30:00.000Z') });
    await refusedUnchanged(root, () => closeCard(ctx(layout), 'p.md', { paths: ['notes/a.md'] }), /it is in pending\/, and close needs it in in-progress\//);
    await refusedUnchanged(root, () => closeCard(ctx(layout, workerEnv(layout, 'post.md')), 'post.md', { paths: ['notes/a.md'] }), /no longer held .*2026-12-02T09:30:00.000Z/);
    // The stale worker's card went back to pending: still refused.
    await refusedUnchanged(root, () => closeCard(ctx(layout, workerEnv(layout, 'p.md')), 'p.md', { paths: ['notes/a.md'] }), /no longer held \(the card is in pending\//);
  });
});

describe('board card fail', () => {
  it('returns the card to pending/ with attempts + 1 and without its claim', async () => {
    const { layout, vault } = board({ 'KANBAN/in-progress/post.md': claimedCard() });
    await failCard(ctx(layout, workerEnv(layout, 'post.md')), 'post.md', 'the notes are empty');
    const d = data(readVault(vault, 'KANBAN/pending/post.md'));
    expect(d).toMatchObject({ attempts: 1 });
    expect(d).not.toHaveProperty('agent');
    expect(d).not.toHaveProperty('claimed');
    expect(d).not.toHaveProperty('model');
    expect(d).not.toHaveProperty('blocked');
    expect(readVault(vault, 'KANBAN/pending/post.md')).toContain('    - writer: failed: the notes are empty\n    - returned to pending/ (attempt 1 of 3).\n');
  });

  it('blocks the card at max_attempts', async () => {
    const { layout, vault } = board({ 'KANBAN/in-progress/post.md': claimedCard().replace('attempts: 0', 'attempts: 1') });
    await failCard(ctx(layout, {}, { maxAttempts: 2 }), 'post.md', 'bad input');
    expect(data(readVault(vault, 'KANBAN/pending/post.md'))).toMatchObject({ attempts: 2, blocked: '2026-12-02 10:00 failed: bad input; attempts exhausted (2 of max_attempts 2)' });
  });

  it('refuses a pending card, a stale claim and a name clash in pending/', async () => {
    const { root, layout } = board({ 'KANBAN/pending/p.md': pendingCard(), 'KANBAN/in-progress/post.md': claimedCard() });
    await refusedUnchanged(root, () => failCard(ctx(layout), 'p.md', 'x'), /fail needs it in in-progress/);
    await refusedUnchanged(root, () => failCard(ctx(layout, workerEnv(layout, 'post.md', 'other')), 'post.md', 'x'), /no longer held/);
    fs.writeFileSync(path.join(layout.pending, 'post.md'), pendingCard());
    await refusedUnchanged(root, () => failCard(ctx(layout), 'post.md', 'x'), /in pending\/ and in-progress\/ at once/);
  });
});

describe('board card block and board unblock', () => {
  it('blocks in place with date and reason; unblock clears it', async () => {
    const { layout, vault } = board({ 'KANBAN/pending/p.md': pendingCard() });
    await blockCard(ctx(layout), 'p.md', 'the destination folder is read-only');
    expect(data(readVault(vault, 'KANBAN/pending/p.md')).blocked).toBe('2026-12-02 10:00 the destination folder is read-only');
    await unblockCard(ctx(layout), 'p.md');
    const text = readVault(vault, 'KANBAN/pending/p.md');
    expect(data(text)).not.toHaveProperty('blocked');
    expect(text).toContain('    - human: unblocked (was: 2026-12-02 10:00 the destination folder is read-only).\n');
  });

  it('unblock resets exhausted attempts, so the census does not block it again', async () => {
    const { layout, vault } = board({ 'KANBAN/pending/p.md': pendingCard("blocked: '2026-12-01 attempts exhausted'").replace('attempts: 0', 'attempts: 3') });
    await unblockCard(ctx(layout), 'p.md');
    expect(data(readVault(vault, 'KANBAN/pending/p.md'))).toMatchObject({ attempts: 0 });
  });

  it('refuses to re-block, to unblock what is not blocked, and a worker unblocking', async () => {
    const { root, layout } = board({ 'KANBAN/pending/p.md': pendingCard("blocked: '2026-12-01 first reason'"), 'KANBAN/pending/q.md': pendingCard(), 'KANBAN/done/d.md': pendingCard() });
    await refusedUnchanged(root, () => blockCard(ctx(layout), 'p.md', 'second'), /already blocked: 2026-12-01 first reason/);
    await refusedUnchanged(root, () => unblockCard(ctx(layout), 'q.md'), /is not blocked/);
    await refusedUnchanged(root, () => unblockCard(ctx(layout, { BOARD_CLAIM: CLAIM }), 'p.md'), /human's verb/);
    await refusedUnchanged(root, () => blockCard(ctx(layout), 'd.md', 'x'), /in done\//);
  });
});

describe('board card yield', () => {
  it("writes the child's done/ path, returns to pending/ keeping attempts, and passes the wiring self-check", async () => {
    const { layout, vault } = board({ 'KANBAN/in-progress/issue.md': directorCard() });
    const env = workerEnv(layout, 'issue.md');
    const child = await newCard(ctx(layout, env), { function: 'write', request: 'Write a blog post draft', flow: 'weekly', director: 'issue.md' });
    const result = await yieldCard(ctx(layout, env), env.BOARD_CARD!, child.file);
    expect(result.state).toBe('pending');
    const text = readVault(vault, 'KANBAN/pending/issue.md');
    const d = data(text);
    expect(d.inputs).toEqual({ notes: 'notes/a.md', dependent_task: `KANBAN/done/${child.card}` });
    expect(d.attempts).toBe(0);
    expect(d).not.toHaveProperty('claimed');
    expect(d).not.toHaveProperty('agent');
    expect(text).toContain(`    - wiring self-check passed: the value names ${child.card} exactly.\n`);
    expect(text).toContain('    - returned to pending/ without spending an attempt (attempts 0).\n');
    expect(Object.keys(d)).toEqual(['function', 'request', 'created', 'origin', 'inputs', 'paths', 'attempts']);
  });

  it('refuses a child that does not name this director, before anything is written', async () => {
    const { root, layout } = board({ 'KANBAN/in-progress/issue.md': directorCard(), 'KANBAN/pending/stray.md': pendingCard('director: someone-else.md') });
    await refusedUnchanged(root, () => yieldCard(ctx(layout, workerEnv(layout, 'issue.md')), 'issue.md', 'stray.md'), /wiring self-check failed: stray\.md names "someone-else\.md"/);
    await refusedUnchanged(root, () => yieldCard(ctx(layout, workerEnv(layout, 'issue.md')), 'issue.md', 'stray-typo.md'), /no card named stray-typo\.md/);
  });

  it("refuses a worker's card, a card not in progress, and a stale director", async () => {
    const { root, layout } = board({
      'KANBAN/in-progress/post.md': claimedCard(),
      'KANBAN/pending/c.md': pendingCard('director: post.md'),
      'KANBAN/pending/issue.md': directorCard(),
    });
    await refusedUnchanged(root, () => yieldCard(ctx(layout), 'post.md', 'c.md'), /writer is a worker/);
    await refusedUnchanged(root, () => yieldCard(ctx(layout), 'issue.md', 'c.md'), /yield needs it in in-progress/);
    await refusedUnchanged(root, () => yieldCard(ctx(layout, workerEnv(layout, 'issue.md')), 'issue.md', 'c.md'), /no longer held/);
  });
});

describe('finding a card', () => {
  it('finds a card by name or by a path into any state folder, even after it moved', async () => {
    const { layout } = board({ 'KANBAN/done/d.md': pendingCard() });
    expect((await findCard(layout, 'd.md', '/')).folder).toBe('done');
    expect((await findCard(layout, path.join(layout.inProgress, 'd.md'), '/')).folder).toBe('done');
    expect((await findCard(layout, 'KANBAN/pending/d.md', '/nowhere')).folder).toBe('done');
  });

  it('refuses an unreadable card and a path off the board', async () => {
    const { layout } = board({ 'KANBAN/pending/bad.md': '---\nfunction: [unclosed\n---\n' });
    await expect(findCard(layout, 'bad.md', '/')).rejects.toThrow(/unreadable, so it is not touched/);
    await expect(findCard(layout, path.join(layout.root, 'notes/a.md'), '/')).rejects.toThrow(/not a card of the board/);
  });
});

describe('board archive', () => {
  const closedCard = (closed: string, extra = '') => pendingCard(`closed: '${closed}'\n${extra}`);

  it("moves closed cards into archive/YYYY-MM/ by their closed month, keeping young ones and live inputs", async () => {
    const { layout, vault } = board({
      'KANBAN/done/old.md': closedCard('2026-10-15T12:00:00.000Z'),
      'KANBAN/done/nov.md': closedCard('2026-11-20T12:00:00.000Z'),
      'KANBAN/done/young.md': closedCard('2026-12-01T12:00:00.000Z'),
      'KANBAN/done/child.md': closedCard('2026-10-01T12:00:00.000Z'),
      'KANBAN/done/unclosed.md': pendingCard(),
      'KANBAN/pending/dir.md': directorCard('').replace('  notes: notes/a.md', '  dependent_task: KANBAN/done/child.md'),
    });
    const result = await archiveCards(layout, NOW);
    expect(result.archived).toEqual([
      { card: 'nov.md', to: 'archive/2026-11/nov.md' },
      { card: 'old.md', to: 'archive/2026-10/old.md' },
    ]);
    expect(result.young).toBe(1);
    expect(result.kept).toEqual([
      { card: 'child.md', reason: 'still an input of dir.md' },
      { card: 'unclosed.md', reason: 'no `closed` timestamp: its month is unknown' },
    ]);
    expect(has(vault, 'KANBAN/archive/2026-10/old.md')).toBe(true);
    expect(has(vault, 'KANBAN/done/old.md')).toBe(false);
    expect(has(vault, 'KANBAN/done/young.md')).toBe(true);
    expect(has(vault, 'KANBAN/done/child.md')).toBe(true);
  });

  it('never replaces a card already archived', async () => {
    const { layout, vault } = board({ 'KANBAN/done/x.md': closedCard('2026-10-15T12:00:00.000Z'), 'KANBAN/archive/2026-10/x.md': 'older\n' });
    const result = await archiveCards(layout, NOW, 0);
    expect(result.kept).toEqual([{ card: 'x.md', reason: 'archive/2026-10/x.md already exists (both files left as they are)' }]);
    expect(readVault(vault, 'KANBAN/archive/2026-10/x.md')).toBe('older\n');
  });
});
