import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planRound } from '../../src/core/plan.js';
import { executePlan, roundSettings } from '../../src/round/run-round.js';
import { readSnapshot } from '../../src/round/read-snapshot.js';
import { readRunRecord, runFactOf } from '../../src/vault/runs.js';
import { runIdFor } from '../../src/core/zombies.js';
import { exists, makeBoard, pendingCard, profile, roundContext } from '../helpers/vault.js';

/**
 * Issue 19: under `watch` with thousands of cards a round's census takes tens of seconds; a card
 * read in in-progress/ early may be closed by its worker before the round judges it. The round
 * must judge what is, not its snapshot: a card its worker closed is never reported as failed.
 */
const NOW = new Date('2026-12-02T10:00:00.000Z');
const WRITER = profile('writer', 'function: write\nhandles: [blog post draft]\nskills: [write]');
const claimedCard = (claimed: string) => pendingCard(`agent: writer\nclaimed: '${claimed}'\nmodel: fake-medium`);

function writeRun(root: string, runId: string, record: object): void {
  fs.mkdirSync(path.join(root, 'vault/KANBAN/.runs'), { recursive: true });
  fs.writeFileSync(path.join(root, `vault/KANBAN/.runs/${runId}.json`), JSON.stringify({ runId, card: 'post.md', host: 'another-host', ...record }));
}

/** What a worker's `board card close` leaves: the card in done/ under its claim, and the supervisor's record. */
function closeByWorker(root: string, runId: string, claim: string): void {
  const from = path.join(root, 'vault/KANBAN/in-progress/post.md');
  const text = fs.readFileSync(from, 'utf8').replace('paths: []', "paths: [notes/post.md]\nclosed: '2026-12-02T09:59:58Z'");
  fs.writeFileSync(path.join(root, 'vault/KANBAN/done/post.md'), text);
  fs.unlinkSync(from);
  writeRun(root, runId, { claim, state: 'exited', exitCode: 0, ended: 'closed', end: '2026-12-02T09:59:59Z' });
}

describe('a round judges what is, not an old snapshot', () => {
  it('a run record read after its worker closed the card is no zombie, though the census read the card in in-progress/', async () => {
    const claim = '2026-12-02T09:59:00.000Z';
    const runId = runIdFor('post.md', claim, 0);
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/post.md': claimedCard(claim) });
    writeRun(root, runId, { claim, state: 'started', pid: 1 });
    const ctx = await roundContext(root, NOW);
    // The census reads the card first …
    const early = await readSnapshot(ctx.layout);
    // … its worker closes it meanwhile …
    closeByWorker(root, runId, claim);
    // … and the run record the census reads later says how the run ended.
    const record = await readRunRecord(ctx.layout.kanban, runId);
    const snapshot = { ...early, runs: new Map([[runId, runFactOf(record!)]]) };
    const plan = planRound(snapshot, roundSettings(ctx.board), NOW);
    expect(plan.zombies).toEqual([]);
    const transitions = await executePlan(ctx, plan);
    expect(transitions.filter((t) => t.kind === 'failed')).toEqual([]);
    expect(exists(root, 'vault/KANBAN/done/post.md')).toBe(true);
  });

  it('a zombie planned from the snapshot and closed by its worker before the reclaim is not reported as failed', async () => {
    const claim = '2026-12-02T07:00:00.000Z';
    const runId = runIdFor('post.md', claim, 0);
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/post.md': claimedCard(claim) });
    writeRun(root, runId, { claim, state: 'started', pid: 1 });
    const ctx = await roundContext(root, NOW);
    const plan = planRound(await readSnapshot(ctx.layout), roundSettings(ctx.board), NOW);
    expect(plan.zombies).toEqual([expect.objectContaining({ card: 'post.md', kind: 'expired' })]);
    closeByWorker(root, runId, claim);
    const transitions = await executePlan(ctx, plan);
    expect(transitions.filter((t) => t.card === 'post.md')).toEqual([]);
    expect(exists(root, 'vault/KANBAN/done/post.md')).toBe(true);
    expect(exists(root, 'vault/KANBAN/pending/post.md')).toBe(false);
  });

  it('a card gone from in-progress/ and not in done/ under that claim is still reported', async () => {
    const claim = '2026-12-02T07:00:00.000Z';
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/post.md': claimedCard(claim) });
    writeRun(root, runIdFor('post.md', claim, 0), { claim, state: 'started', pid: 1 });
    const ctx = await roundContext(root, NOW);
    const plan = planRound(await readSnapshot(ctx.layout), roundSettings(ctx.board), NOW);
    fs.unlinkSync(path.join(root, 'vault/KANBAN/in-progress/post.md'));
    const transitions = await executePlan(ctx, plan);
    expect(transitions).toContainEqual(expect.objectContaining({ kind: 'failed', card: 'post.md', detail: expect.stringContaining('is not in done/ under that claim') }));
  });
});
