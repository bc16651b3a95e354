import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import type { Plan, PlannedWait } from '../../src/core/types.js';
import { silentLogger } from '../../src/log.js';
import type { Transition } from '../../src/round/context.js';
import { runLockedRound } from '../../src/round/locked-round.js';
import { runPartialRound } from '../../src/round/partial-round.js';
import { CensusCache } from '../../src/vault/census-cache.js';
import { startWatch, type WatchHandle } from '../../src/watch/daemon.js';
import { decideFastPath, MAX_PARTIAL_CARDS, needsFullRound, neutralDoneLandings, type BatchChange } from '../../src/watch/fast-path.js';
import { BOARD_YML, card, exists, FakeSpawner, makeBoard, profile, read, roundContext, snapshotTree } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';
import { VerdictStore } from '../../src/round/verdict-store.js';

const COUNTER = profile('counter', 'function: count\nhandles: [count words]\nskills: [count-words]');
const SORTER = profile('sorter', 'function: sort\nhandles: [sort lines]\nskills: [sort-lines]\nmodel_capacity: advanced');

function newCard(fn = 'count', request = 'count words in the notes', created = '2026-12-01 09:00') {
  return card(`function: ${fn}\nrequest: ${request}\ncreated: ${created}\norigin: human\nattempts: 0\npaths: []`, '\n## Record\n');
}

function plan(waiting: PlannedWait[] = []): Plan {
  return { now: '', scheduled: [], dispatch: [], waiting, blocked: [], zombies: [], invalid: [], profiles: [], profileProblems: [], templateProblems: [] };
}

describe('the fast-path decision', () => {
  const add = (p: string): BatchChange => ({ event: 'add', path: p });
  const ready = { fullNeeded: false };

  it('takes the partial path only for cards added or changed in pending/, on a change round', () => {
    expect(decideFastPath('change', [add('KANBAN/pending/a.md'), { event: 'change', path: 'KANBAN/pending/b.md' }, add('KANBAN/pending/a.md')], ready)).toEqual({ kind: 'partial', cards: ['a.md', 'b.md'] });
  });

  it.each<[string, BatchChange]>([
    ['a card landing in done/ (a director may wake)', add('KANBAN/done/child.md')],
    ['a template', add('KANBAN/scheduled/daily.md')],
    ['a profile', { event: 'change', path: 'AGENTS/counter/PROFILE.md' }],
    ['a profile removed', { event: 'unlink', path: 'AGENTS/counter/PROFILE.md' }],
    ['an agent folder gone', { event: 'unlinkDir', path: 'AGENTS/counter' }],
    ['pending/ itself replaced', { event: 'addDir', path: 'KANBAN/pending' }],
    ['an unnamed change in pending/', { event: 'change', path: 'KANBAN/pending' }],
    ['the board appearing', { event: 'addDir', path: 'KANBAN' }],
  ])('takes the full path for %s, even beside a pending card', (_what, change) => {
    expect(decideFastPath('change', [add('KANBAN/pending/a.md'), change], ready).kind).toBe('full');
  });

  it.each(['start', 'heartbeat', 'retry', 'again'] as const)('a %s round is always full', (reason) => {
    expect(decideFastPath(reason, [add('KANBAN/pending/a.md')], ready).kind).toBe('full');
  });

  it('takes the full path after a round that left a capacity wait or a failed claim, too many cards, or no named change', () => {
    const batch = [add('KANBAN/pending/a.md')];
    expect(decideFastPath('change', batch, { fullNeeded: true }).kind).toBe('full');
    expect(decideFastPath('change', batch, { fullNeeded: false, overflow: true }).kind).toBe('full');
    expect(decideFastPath('change', [], ready).kind).toBe('full');
    const many = Array.from({ length: MAX_PARTIAL_CARDS + 1 }, (_, i) => add(`KANBAN/pending/c${i}.md`));
    expect(decideFastPath('change', many, ready).kind).toBe('full');
    expect(decideFastPath('change', many.slice(1), ready).kind).toBe('partial');
  });

  it('lets a close through only when no pending card can be waiting for it', async () => {
    const landed = [add('KANBAN/done/child.md'), add('KANBAN/pending/a.md')];
    expect(decideFastPath('change', landed, { fullNeeded: false, neutralDone: new Set(['child.md']) })).toEqual({ kind: 'partial', cards: ['a.md'] });
    expect(decideFastPath('change', [add('KANBAN/done/child.md')], { fullNeeded: false, neutralDone: new Set(['child.md']) })).toEqual({ kind: 'partial', cards: [] });
    expect(decideFastPath('change', landed, { fullNeeded: false, neutralDone: new Set(['other.md']) }).kind).toBe('full');

    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fast-path-'));
    fs.mkdirSync(path.join(root, 'notes'));
    expect([...(await neutralDoneLandings(root, landed, new Set(['notes/source.md'])))]).toEqual(['child.md']);
    // A director waiting on this child (or any path ending in its name) needs the full round.
    expect([...(await neutralDoneLandings(root, landed, new Set(['KANBAN/done/child.md'])))]).toEqual([]);
    expect([...(await neutralDoneLandings(root, landed, new Set(['notes/child.md'])))]).toEqual([]);
    // A dangling link may now lead to it.
    fs.symlinkSync('../KANBAN/done/child.md', path.join(root, 'notes/link.md'));
    expect([...(await neutralDoneLandings(root, landed, new Set(['notes/link.md'])))]).toEqual([]);
    // No full round yet: nothing is known to be neutral.
    expect([...(await neutralDoneLandings(root, landed, undefined))]).toEqual([]);
  });

  it('needs a full round after a capacity wait or a failed claim, and only then', () => {
    const capacity: PlannedWait = { card: 'x.md', reason: 'max_dispatches_per_round (5) is reached', kind: 'capacity' };
    const failed: Transition = { kind: 'failed', card: 'y.md', detail: 'clash' };
    expect(needsFullRound(plan([capacity]), [])).toBe(true);
    expect(needsFullRound(plan(), [failed])).toBe(true);
    for (const kind of ['input', 'unmatched', 'ambiguous', 'human', 'harness', 'model', 'keys'] as const) {
      expect(needsFullRound(plan([{ card: 'z.md', reason: kind, kind }]), [{ kind: 'spawned', card: 'w.md', detail: '' }])).toBe(false);
    }
  });
});

describe('a partial round decides what a full round would', () => {
  const now = new Date('2026-12-02T10:00:00Z');
  const vault = {
    'AGENTS/counter/PROFILE.md': COUNTER,
    'AGENTS/sorter/PROFILE.md': SORTER,
    // Cards a full round leaves waiting, each for a reason of its own.
    'KANBAN/pending/unmatched.md': newCard('paint', 'paint the fence'),
    'KANBAN/pending/for-a-human.md': card('function: count\nrequest: count words\ncreated: 2026-11-30 09:00\norigin: human\nrecipient: alice\nattempts: 0\npaths: []'),
    'KANBAN/pending/needs-input.md': card('function: count\nrequest: count words\ncreated: 2026-11-30 09:00\norigin: human\nattempts: 0\npaths: []\ninputs:\n  notes: notes/later.md'),
  };

  async function settled() {
    const root = makeBoard(vault);
    const spawner = new FakeSpawner();
    const ctx = await roundContext(root, new Date('2026-12-02T09:00:00Z'), spawner);
    const cache = new CensusCache({ racyMs: 0 });
    let profileFiles: string[] = [];
    const first = await runLockedRound({ ...ctx, cache, onSnapshot: (s) => void (profileFiles = s.profiles.map((p) => ctx.layout.absolute(p.file))) }, silentLogger(), spawner, 'watch');
    if (first.skipped) throw new Error('skipped');
    expect(first.plan.dispatch).toEqual([]);
    expect(needsFullRound(first.plan, first.transitions)).toBe(false);
    return { root, spawner, ctx, cache, profileFiles };
  }

  it('dispatches a new card with the same profile, harness, model, command and Record line, and touches no other card', async () => {
    const partialBoard = await settled();
    const fullBoard = await settled();
    for (const b of [partialBoard, fullBoard]) {
      fs.writeFileSync(path.join(b.root, 'vault/KANBAN/pending/new-sort.md'), newCard('sort', 'sort lines of the list', '2026-12-02 08:00'));
      fs.writeFileSync(path.join(b.root, 'vault/KANBAN/pending/new-count.md'), newCard('count', 'count words in the notes', '2026-12-02 07:00'));
    }
    const before = snapshotTree(path.join(partialBoard.root, 'vault/KANBAN/pending'));

    const p = partialBoard;
    const partial = await runPartialRound({ ...p.ctx, now, cache: p.cache, profileFiles: p.profileFiles, cards: ['new-sort.md', 'new-count.md'] }, silentLogger(), p.spawner);
    if (partial.fallback !== undefined) throw new Error(partial.fallback);
    const f = fullBoard;
    const full = await runLockedRound({ ...f.ctx, now, cache: f.cache }, silentLogger(), f.spawner, 'watch');
    if (full.skipped) throw new Error('skipped');

    expect(partial.plan.dispatch).toEqual(full.plan.dispatch);
    expect(partial.plan.dispatch.map((d) => [d.card, d.profile, d.harness, d.model])).toEqual([
      ['new-count.md', 'counter', 'fake', 'fake-medium'],
      ['new-sort.md', 'sorter', 'fake', 'fake-large'],
    ]);
    expect(partial.transitions.map((t) => `${t.kind} ${t.card} ${t.profile ?? ''}`)).toEqual(full.transitions.map((t) => `${t.kind} ${t.card} ${t.profile ?? ''}`));
    for (const name of ['new-count.md', 'new-sort.md']) {
      const rel = `vault/KANBAN/in-progress/${name}`;
      // Same claim, same Record line: the two vaults' cards are byte for byte alike.
      expect(read(p.root, rel)).toBe(read(f.root, rel));
      expect(read(p.root, rel)).toMatch(/## Record\n.*(counter|sorter)/s);
    }
    const strip = (s: string) => s.replaceAll(p.root, '<root>').replaceAll(f.root, '<root>');
    const jobs = (s: FakeSpawner) => s.jobs.map((j) => strip(JSON.stringify({ card: j.card, claim: j.claim, runId: j.runId, argv: j.command.argv ?? j.command })).replace(/"BOARD_CAUSE[^,]*,?/g, ''));
    expect(jobs(p.spawner).map((j) => j.replace(/evt[-_][A-Za-z0-9]+/g, ''))).toEqual(jobs(f.spawner).map((j) => j.replace(/evt[-_][A-Za-z0-9]+/g, '')));

    // The cards outside the batch are untouched (not even rewritten), and still waiting.
    const after = snapshotTree(path.join(p.root, 'vault/KANBAN/pending'));
    for (const name of ['unmatched.md', 'for-a-human.md', 'needs-input.md']) expect(after.get(name)).toBe(before.get(name));
    expect(partial.plan.waiting).toEqual([]);
    expect(full.plan.waiting.map((w) => w.card)).toEqual(['for-a-human.md', 'needs-input.md', 'unmatched.md']);
    // Journal: the claim was journaled, and no tick:ran for the partial round.
    const journal = fs.readdirSync(path.join(p.root, 'logs'), { recursive: true }).map(String);
    const text = journal.filter((n) => n.endsWith('.ndjson')).map((n) => fs.readFileSync(path.join(p.root, 'logs', n), 'utf8')).join('');
    expect(text.match(/"kind":"tick:ran"/g)).toHaveLength(1);
    expect(text).toMatch(/"kind":"card:claimed".*new-count\.md/);
    // Other cards' verdicts are kept.
    const verdicts = await new VerdictStore(path.join(p.root, 'logs')).load();
    expect([...verdicts.keys()].sort()).toEqual(['for-a-human.md', 'needs-input.md', 'unmatched.md']);
  });

  it('falls back, before any write, on a card it cannot read or one also in in-progress/', async () => {
    const b = await settled();
    fs.writeFileSync(path.join(b.root, 'vault/KANBAN/pending/broken.md'), '---\nfunction: [\n---\n');
    const tree = snapshotTree(path.join(b.root, 'vault'));
    const broken = await runPartialRound({ ...b.ctx, now, cache: b.cache, profileFiles: b.profileFiles, cards: ['broken.md'] }, silentLogger(), b.spawner);
    expect(broken.fallback).toMatch(/cannot be read/);
    fs.rmSync(path.join(b.root, 'vault/KANBAN/pending/broken.md'));
    fs.writeFileSync(path.join(b.root, 'vault/KANBAN/pending/twice.md'), newCard());
    fs.writeFileSync(path.join(b.root, 'vault/KANBAN/in-progress/twice.md'), newCard());
    const twice = await runPartialRound({ ...b.ctx, now, cache: b.cache, profileFiles: b.profileFiles, cards: ['twice.md'] }, silentLogger(), b.spawner);
    expect(twice.fallback).toMatch(/also in in-progress/);
    expect(b.spawner.jobs).toHaveLength(0);
    expect(tree.size).toBeGreaterThan(0);
  });
});

function envFor(root: string): CommandEnv {
  return { cwd: root, env: {}, stdout: () => undefined, logger: silentLogger(), clock: () => new Date() };
}


describe('board watch takes the fast path only when it may', () => {
  const handles: WatchHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop()));
  });

  async function start(root: string, spawner: FakeSpawner) {
    const handle = await startWatch({ options: { config: 'board.yml' }, env: envFor(root), spawner }, { intervalMs: 3_600_000, debounceMs: 50, poll: false, retryMs: 100 });
    handles.push(handle);
    const ends: { reason: string; partial: boolean; dispatched: string[] }[] = [];
    handle.events.on('round:end', (e) => ends.push({ reason: e.reason, partial: e.partial === true, dispatched: e.result && !e.result.skipped ? e.result.plan.dispatch.map((d) => d.card) : [] }));
    await waitFor('the first round', () => ends.length > 0);
    return ends;
  }

  function drop(root: string, name: string, text = newCard()) {
    const tmp = path.join(root, `vault/KANBAN/pending/.${name}.tmp`);
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, path.join(root, `vault/KANBAN/pending/${name}`));
  }

  it('a card dropped on a settled board is dispatched by a partial round', async () => {
    const root = makeBoard({ 'AGENTS/counter/PROFILE.md': COUNTER, 'KANBAN/pending/unmatched.md': newCard('paint', 'paint the fence') });
    const spawner = new FakeSpawner();
    const ends = await start(root, spawner);
    drop(root, 'dropped.md');
    const round = await waitFor('the partial round', () => ends.find((e) => e.dispatched.includes('dropped.md')));
    expect(round).toMatchObject({ reason: 'change', partial: true });
    expect(exists(root, 'vault/KANBAN/in-progress/dropped.md')).toBe(true);
    expect(exists(root, 'vault/KANBAN/pending/unmatched.md')).toBe(true);
    expect(spawner.jobs).toHaveLength(1);
  });

  it('a close nobody waits on needs no round; a child its director waits on takes the full path and wakes it', async () => {
    const DIRECTOR = profile('boss', 'function: direct\nhandles: [direct the count]\nprofiles: [counter]\nfailure_policy: block');
    const root = makeBoard({
      'AGENTS/counter/PROFILE.md': COUNTER,
      'AGENTS/boss/PROFILE.md': DIRECTOR,
      'KANBAN/pending/director.md': card('function: direct\nrequest: direct the count\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []\ninputs:\n  dependent_task: KANBAN/done/child.md'),
    });
    const spawner = new FakeSpawner();
    const ends = await start(root, spawner);
    expect(ends[0]).toMatchObject({ reason: 'start', dispatched: [] });
    fs.writeFileSync(path.join(root, 'vault/KANBAN/done/unrelated.md'), card('function: count\nrequest: x\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 1\npaths: [notes/a.md]'));
    await waitFor('the close', () => ends.length > 1);
    expect(ends[1]).toMatchObject({ reason: 'change', partial: true, dispatched: [] });
    fs.writeFileSync(path.join(root, 'vault/KANBAN/done/child.md'), card('function: count\nrequest: x\ncreated: 2026-12-01 09:00\norigin: boss\nattempts: 1\npaths: [notes/a.md]'));
    const woken = await waitFor('the wake', () => ends.find((e) => e.dispatched.includes('director.md')));
    expect(woken).toMatchObject({ reason: 'change', partial: false });
  });

  it('a capacity wait forces the full path, which dispatches the waiting card first', async () => {
    const root = makeBoard(
      {
        'AGENTS/counter/PROFILE.md': COUNTER,
        'KANBAN/pending/first.md': newCard('count', 'count words', '2026-11-01 09:00'),
        'KANBAN/pending/second.md': newCard('count', 'count words', '2026-11-02 09:00'),
      },
      { 'board.yml': `${BOARD_YML}max_dispatches_per_round: 1\n` },
    );
    const spawner = new FakeSpawner();
    const ends = await start(root, spawner);
    expect(ends[0]).toMatchObject({ reason: 'start', dispatched: ['first.md'] });
    // second.md waits for capacity: the newer card must not jump it through a partial round.
    drop(root, 'third.md', newCard('count', 'count words', '2026-12-01 09:00'));
    const round = await waitFor('the change round', () => ends.find((e) => e.reason === 'change'));
    expect(round).toMatchObject({ partial: false, dispatched: ['second.md'] });
    expect(exists(root, 'vault/KANBAN/pending/third.md')).toBe(true);
  });
});
