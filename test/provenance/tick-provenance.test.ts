import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tickCommand } from '../../src/commands/tick.js';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import { replayCommand } from '../../src/commands/replay.js';
import { traceCommand } from '../../src/commands/trace.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { openJournal, openJournalFromEnv, type JournalEvent } from '../../src/journal/index.js';
import { ObjectStore, listManifests, readManifest, rebuildRequest } from '../../src/provenance/index.js';
import { noteCard } from '../../src/card/note.js';
import { unblockCard } from '../../src/card/unblock.js';
import { CardRefused } from '../../src/card/context.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { loadBoard } from '../../src/config/load-config.js';
import { FakeSpawner, card, makeBoard, profile, read, snapshotTree } from '../helpers/vault.js';

function commandEnv(root: string, now: string): CommandEnv & { out: string[] } {
  const out: string[] = [];
  return { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(now), out };
}

async function tick(root: string, now: string, spawner = new FakeSpawner()) {
  const code = await tickCommand({ now, json: true }, commandEnv(root, now), spawner);
  expect(code).toBe(0);
  return spawner;
}

const DIRECTOR = profile('publisher', `
function: orchestrate
handles: [publish a post]
profiles: [writer]
failure_policy: block the flow
`);
const WRITER = profile('writer', `
function: write
handles: [blog post draft]
skills: [write-in-own-voice, check-facts]
`);
const SKILL = '---\nname: write-in-own-voice\n---\n# Write in your own voice\n';

const events = async (root: string): Promise<JournalEvent[]> => (await openJournal(path.join(root, 'logs')).read()).events;

/** What a director does in card mode, done by hand: one child, then a yield on it. */
async function directorCreatesChildAndYields(root: string, workerEnv: Record<string, string>) {
  const journal = await openJournalFromEnv({ BOARD_CONFIG: workerEnv.BOARD_CONFIG });
  const cause = workerEnv.BOARD_CAUSE;
  fs.writeFileSync(
    path.join(root, 'vault/KANBAN/pending/child.md'),
    card(`function: write\nrequest: a blog post draft about kanban\ncreated: 2026-12-02 10:01\norigin: publisher\nflow: kanban-post\ndirector: flow.md\npaths: []\nattempts: 0`),
  );
  await journal.append({ kind: 'card:created', actor: 'publisher', card: 'child.md', cause, at: new Date('2026-12-02T10:01:00Z') });
  fs.rmSync(path.join(root, 'vault/KANBAN/in-progress/flow.md'));
  fs.writeFileSync(
    path.join(root, 'vault/KANBAN/pending/flow.md'),
    card(`function: orchestrate\nrequest: publish a post about kanban\ncreated: 2026-12-02 09:00\norigin: human\npaths: []\nattempts: 0\ninputs:\n  dependent_task: KANBAN/done/child.md`),
  );
  await journal.append({ kind: 'card:yielded', actor: 'publisher', card: 'flow.md', cause, at: new Date('2026-12-02T10:01:30Z') });
}

async function childCloses(root: string, workerEnv: Record<string, string>) {
  const journal = await openJournalFromEnv({ BOARD_CONFIG: workerEnv.BOARD_CONFIG });
  const text = read(root, 'vault/KANBAN/in-progress/child.md').replace('paths: []', 'paths: [outputs/post.md]\nclosed: 2026-12-02 10:07');
  fs.writeFileSync(path.join(root, 'vault/KANBAN/done/child.md'), text);
  fs.rmSync(path.join(root, 'vault/KANBAN/in-progress/child.md'));
  return journal.append({ kind: 'card:closed', actor: 'writer', card: 'child.md', cause: workerEnv.BOARD_CAUSE, at: new Date('2026-12-02T10:07:00Z') });
}

function board() {
  return makeBoard({
    'AGENTS/publisher/PROFILE.md': DIRECTOR,
    'AGENTS/writer/PROFILE.md': WRITER,
    'AGENTS/writer/skills/write-in-own-voice/SKILL.md': SKILL,
    'KANBAN/pending/flow.md': card(`function: orchestrate\nrequest: publish a post about kanban\ncreated: 2026-12-02 09:00\norigin: human\npaths: []\nattempts: 0`),
  });
}

describe('tick: journal and provenance', () => {
  it('journals claimed and spawned with causal links, hands the claim id to the worker, and stores every component', async () => {
    const root = board();
    const spawner = await tick(root, '2026-12-02T10:00:00.000Z');
    expect(spawner.jobs).toHaveLength(1);
    const job = spawner.jobs[0]!;
    const all = await events(root);
    const claimed = all.find((e) => e.kind === 'card:claimed')!;
    const spawned = all.find((e) => e.kind === 'card:spawned')!;
    expect(all.map((e) => e.kind)).toEqual(['tick:ran', 'card:claimed', 'card:spawned']);
    expect(claimed).toMatchObject({ card: 'flow.md', actor: 'board', profile: 'publisher', run: job.runId });
    expect(spawned).toMatchObject({ card: 'flow.md', cause: claimed.id, pid: 4242, run: job.runId });
    expect(job.command.env.BOARD_CAUSE).toBe(claimed.id);
    expect(job.provenance?.cause).toBe(claimed.id);

    const manifest = (await readManifest(path.join(root, 'logs'), job.runId))!;
    expect(job.provenance?.manifest).toBe(path.join(root, 'logs/manifests', `${job.runId}.json`));
    expect(manifest.components.map((c) => c.name)).toEqual(['profile', 'card', 'harness', 'prompt']);
    const store = new ObjectStore(path.join(root, 'logs'));
    for (const c of manifest.components) expect(fs.existsSync(store.pathOf(c.hash!))).toBe(true);
    expect(await store.getText(manifest.components.find((c) => c.name === 'card')!.hash!)).toBe(read(root, 'vault/KANBAN/in-progress/flow.md'));
    expect(await store.getText(manifest.components.find((c) => c.name === 'prompt')!.hash!)).toBe(job.command.prompt);
    expect(manifest).toMatchObject({ card: 'flow.md', profile: 'publisher', harness: 'fake', model: 'fake-medium', cause: claimed.id, argv: [job.command.file, ...job.command.args] });
  });

  it("follows a flow: the child's creation points at its director's claim, the director's wake at the child's close", async () => {
    const root = board();
    const first = await tick(root, '2026-12-02T10:00:00.000Z');
    const directorEnv = first.jobs[0]!.command.env;
    await directorCreatesChildAndYields(root, { ...directorEnv });

    const second = await tick(root, '2026-12-02T10:05:00.000Z');
    expect(second.jobs.map((j) => path.basename(j.card))).toEqual(['child.md']);
    const childJob = second.jobs[0]!;
    let all = await events(root);
    const directorClaim = all.find((e) => e.kind === 'card:claimed' && e.card === 'flow.md')!;
    const created = all.find((e) => e.kind === 'card:created' && e.card === 'child.md')!;
    const childClaim = all.find((e) => e.kind === 'card:claimed' && e.card === 'child.md')!;
    expect(created.cause).toBe(directorClaim.id);
    expect(childClaim.cause).toBe(created.id);
    expect(childJob.command.env.BOARD_CAUSE).toBe(childClaim.id);
    // The director sleeps on its child: journaled once, not every tick.
    const waiting = all.filter((e) => e.kind === 'census:waiting' && e.card === 'flow.md');
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.cause).toBe(all.find((e) => e.kind === 'card:yielded')!.id);

    // The worker's manifest lists its mounted skill, and the one without SKILL.md as missing.
    const childManifest = (await readManifest(path.join(root, 'logs'), childJob.runId))!;
    expect(childManifest.components.map((c) => [c.name, c.missing ?? 'stored'])).toEqual([
      ['profile', 'stored'],
      ['skill:write-in-own-voice', 'stored'],
      ['skill:check-facts', 'no SKILL.md'],
      ['card', 'stored'],
      ['harness', 'stored'],
      ['prompt', 'stored'],
    ]);
    expect(childManifest.flow).toBe('kanban-post');

    await tick(root, '2026-12-02T10:06:00.000Z');
    expect((await events(root)).filter((e) => e.kind === 'census:waiting' && e.card === 'flow.md')).toHaveLength(1);

    const closed = await childCloses(root, { ...childJob.command.env });
    const third = await tick(root, '2026-12-02T10:10:00.000Z');
    expect(third.jobs.map((j) => path.basename(j.card))).toEqual(['flow.md']);
    all = await events(root);
    const wake = all.filter((e) => e.kind === 'card:claimed' && e.card === 'flow.md')[1]!;
    expect(wake.cause).toBe(closed.id);

    // The trace of the child runs from the director's first claim to its wake.
    const env = commandEnv(root, '2026-12-02T10:11:00.000Z');
    expect(await traceCommand('child.md', {}, env)).toBe(0);
    const text = env.out.join('');
    const order = ['card:claimed flow.md', 'card:created child.md', 'card:claimed child.md', 'card:closed child.md'];
    let at = -1;
    for (const needle of order) {
      const next = text.indexOf(needle, at + 1);
      expect(next, needle).toBeGreaterThan(at);
      at = next;
    }
    expect(text.lastIndexOf('card:claimed flow.md')).toBeGreaterThan(text.indexOf('card:closed child.md'));
  });

  it('dry-run journals and stores nothing', async () => {
    const root = board();
    const before = snapshotTree(root);
    expect(await dryRunCommand({ now: '2026-12-02T10:00:00.000Z', json: true }, commandEnv(root, '2026-12-02T10:00:00.000Z'))).toBe(0);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('journals a scheduled period no tick ran in, once', async () => {
    const root = makeBoard({
      'KANBAN/scheduled/digest.md': card(`function: write\nrequest: a digest\norigin: scheduler\ntrigger:\n  every: day\n  time: "08:00"`),
    });
    // The journal existed before yesterday's instance was due, and no tick ran in yesterday.
    await openJournal(path.join(root, 'logs')).append({ kind: 'tick:ran', actor: 'board', at: new Date('2026-11-30T12:00:00Z') });
    await tick(root, '2026-12-02T09:00:00.000Z');
    await tick(root, '2026-12-02T09:05:00.000Z');
    const skipped = (await events(root)).filter((e) => e.kind === 'schedule:skipped');
    expect(skipped.map((e) => e.card)).toEqual(['2026-12-01-digest.md']);
    expect((await events(root)).filter((e) => e.kind === 'schedule:written').map((e) => e.card)).toEqual(['2026-12-02-digest.md']);
  });

  it('journals every period of an idle stretch, back to the journal\'s start', async () => {
    const root = makeBoard({
      'KANBAN/scheduled/digest.md': card(`function: write\nrequest: a digest\norigin: scheduler\ntrigger:\n  every: day\n  time: "08:00"`),
    });
    // The journal starts before 2026-11-27's instance was due; no tick ran after that until today.
    await openJournal(path.join(root, 'logs')).append({ kind: 'tick:ran', actor: 'board', at: new Date('2026-11-27T07:00:00Z') });
    await tick(root, '2026-12-02T09:00:00.000Z');
    await tick(root, '2026-12-02T09:05:00.000Z');
    const skipped = (await events(root)).filter((e) => e.kind === 'schedule:skipped').map((e) => e.card);
    expect(skipped.sort()).toEqual(['2026-11-27-digest.md', '2026-11-28-digest.md', '2026-11-29-digest.md', '2026-11-30-digest.md', '2026-12-01-digest.md']);
  });

  it('replay rebuilds the identical argv and prompt bytes, and spawns on a copy of the card', async () => {
    const root = board();
    const first = await tick(root, '2026-12-02T10:00:00.000Z');
    const job = first.jobs[0]!;
    const logs = path.join(root, 'logs');
    const manifest = (await readManifest(logs, job.runId))!;
    const installed = (await loadBoard({ cwd: root, env: {}, config: 'board.yml' })).harnesses.get('fake')!;
    const rebuilt = await rebuildRequest(new ObjectStore(logs), manifest, { harness: { name: 'fake', definition: installed } });
    expect(rebuilt.identical).toBe(true);
    expect(rebuilt.argv).toEqual([job.command.file, ...job.command.args]);
    expect(Buffer.from(rebuilt.prompt)).toEqual(Buffer.from(job.command.prompt));
    expect(rebuilt.substitutions).toEqual({});

    const liveCard = read(root, 'vault/KANBAN/in-progress/flow.md');
    const beforeDry = snapshotTree(root);
    const dryEnv = commandEnv(root, '2026-12-02T11:00:00.000Z');
    expect(await replayCommand(job.runId, { dryRun: true, json: true }, dryEnv, new FakeSpawner())).toBe(0);
    expect(snapshotTree(root)).toEqual(beforeDry);
    expect(JSON.parse(dryEnv.out.join(''))).toMatchObject({ run: `${job.runId}.replay-1`, original_reproduced: true, model: 'fake-medium', harness_changes: [] });

    const spawner = new FakeSpawner();
    const env = commandEnv(root, '2026-12-02T11:00:00.000Z');
    expect(await replayCommand(job.runId.slice(0, 12), { model: 'fake-large' }, env, spawner)).toBe(0);
    const replay = spawner.jobs[0]!;
    expect(replay.runId).toBe(`${job.runId}.replay-1`);
    expect(replay.card).toBe(path.join(logs, 'replays', replay.runId, 'flow.md'));
    expect(replay.command.env.BOARD_CLAIM).toBe(`replay:${replay.runId}`);
    expect(replay.command.env.BOARD_CARD).toBe(replay.card);
    // A replayed worker naming the live card by its file name is fenced out, and cannot unblock.
    const replayCtx = { layout: new VaultLayout(path.join(root, 'vault')), now: new Date('2026-12-02T11:00:00.000Z'), maxAttempts: 3, env: replay.command.env, cwd: root };
    await expect(noteCard(replayCtx, 'flow.md', 'sneaky milestone')).rejects.toThrow(CardRefused);
    await expect(unblockCard(replayCtx, 'flow.md')).rejects.toThrow(/human's verb/);
    expect(replay.command.args).toContain('fake-large');
    expect(replay.command.prompt).toBe(job.command.prompt.replace(job.card, replay.card));
    expect(fs.readFileSync(replay.card, 'utf8')).toBe(liveCard);
    expect(read(root, 'vault/KANBAN/in-progress/flow.md')).toBe(liveCard);
    const stored = (await readManifest(logs, replay.runId))!;
    expect(stored).toMatchObject({ replay_of: job.runId, model: 'fake-large', substitutions: { model: { from: 'fake-medium', to: 'fake-large' } } });
    const replayed = (await events(root)).find((e) => e.kind === 'run:replayed')!;
    expect(replayed.cause).toBe(manifest.cause);
    expect((await listManifests(logs)).manifests.map((m) => m.run)).toEqual([job.runId, replay.runId]);
  });
});
