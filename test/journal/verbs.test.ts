import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardCloseCommand, cardNewCommand, cardNoteCommand } from '../../src/commands/card.js';
import { tickCommand } from '../../src/commands/tick.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { openJournal } from '../../src/journal/index.js';
import { FakeSpawner, makeBoard, profile } from '../helpers/vault.js';

const NOW = '2026-12-02T10:00:00.000Z';

function commandEnv(cwd: string, env: NodeJS.ProcessEnv = {}): CommandEnv & { out: string[] } {
  const out: string[] = [];
  return { cwd, env, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW), out };
}

describe('card verbs journal their transitions', () => {
  it("a human's new card is a root; a worker's note and close point at its claim", async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post draft]\nskills: [draft]') });
    expect(await cardNewCommand({ function: 'write', request: 'a blog post draft about kanban', now: NOW }, commandEnv(root))).toBe(0);
    const spawner = new FakeSpawner();
    expect(await tickCommand({ now: NOW, json: true }, commandEnv(root), spawner)).toBe(0);
    const job = spawner.jobs[0]!;
    const workerEnv = { ...job.command.env };
    fs.mkdirSync(path.join(root, 'vault/outputs'), { recursive: true });
    fs.writeFileSync(path.join(root, 'vault/outputs/post.md'), '# Post\n');
    const cwd = path.join(root, 'vault');
    expect(await cardNoteCommand(job.card, 'writer: admission passed', { now: NOW }, commandEnv(cwd, workerEnv))).toBe(0);
    expect(await cardCloseCommand(job.card, { path: ['outputs/post.md'], now: NOW }, commandEnv(cwd, workerEnv))).toBe(0);

    const { events } = await openJournal(path.join(root, 'logs')).read();
    const name = path.basename(job.card);
    const mine = events.filter((e) => e.card === name);
    expect(mine.map((e) => e.kind)).toEqual(['card:created', 'card:claimed', 'card:spawned', 'card:noted', 'card:closed']);
    const [created, claimed, , noted, closed] = mine;
    expect(created).toMatchObject({ actor: 'human' });
    expect(created!.cause).toBeUndefined();
    expect(claimed!.cause).toBe(created!.id);
    expect(noted).toMatchObject({ actor: 'writer', cause: claimed!.id, run: job.runId });
    expect(closed).toMatchObject({ actor: 'writer', cause: claimed!.id });
  });
});
