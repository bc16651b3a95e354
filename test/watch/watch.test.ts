import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { startWatch, type WatchHandle } from '../../src/watch/daemon.js';
import { card, exists, FakeSpawner, makeBoard, profile } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const COUNTER = profile('counter', 'function: count\nhandles: [count words]\nskills: [count-words]');

function envFor(root: string, out: string[] = []): CommandEnv {
  return { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date() };
}

function newCard(request = 'count words in the notes') {
  return card(`function: count\nrequest: ${request}\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []`);
}


const handles: WatchHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop()));
});

async function start(root: string, spawner: FakeSpawner, over: { poll?: boolean } = {}) {
  // The heartbeat is an hour: anything that happens within the test happened by signal.
  const handle = await startWatch(
    { options: { config: 'board.yml' }, env: envFor(root), spawner },
    { intervalMs: 3_600_000, debounceMs: 50, poll: over.poll ?? false, pollIntervalMs: 100, retryMs: 100 },
  );
  handles.push(handle);
  const ends: string[] = [];
  handle.events.on('round:end', (e) => ends.push(`${e.reason}:${e.outcome}`));
  await waitFor('the first round', () => ends.length > 0);
  await waitFor('the watcher', () => true);
  return { handle, ends };
}

describe('board watch (a real chokidar watcher on a temp vault)', () => {
  it('claims a card dropped into pending/ without waiting for the heartbeat', async () => {
    const root = makeBoard({ 'AGENTS/counter/PROFILE.md': COUNTER });
    const spawner = new FakeSpawner();
    const { ends } = await start(root, spawner);
    expect(ends).toEqual(['start:ok']);
    expect(spawner.jobs).toHaveLength(0);

    // Written the way editors and the board do: a temp dotfile, then a rename.
    const tmp = path.join(root, 'vault/KANBAN/pending/.dropped.md.tmp');
    fs.writeFileSync(tmp, newCard());
    fs.renameSync(tmp, path.join(root, 'vault/KANBAN/pending/dropped.md'));

    await waitFor('the claim', () => exists(root, 'vault/KANBAN/in-progress/dropped.md'));
    await waitFor('the spawn', () => spawner.jobs.length === 1);
    expect(spawner.jobs[0]!.card).toBe(path.join(root, 'vault/KANBAN/in-progress/dropped.md'));
    await waitFor('the round to end', () => ends.some((e) => e === 'change:ok'));
    expect(exists(root, 'vault/KANBAN/.board.lock')).toBe(false);
    const last = JSON.parse(fs.readFileSync(path.join(root, 'logs/last-round.json'), 'utf8'));
    expect(last).toMatchObject({ outcome: 'ok', by: 'watch' });
  });

  it('wakes on a new profile: a card that was unmatched is dispatched once its agent is written', async () => {
    const root = makeBoard({ 'KANBAN/pending/orphan.md': newCard() });
    const spawner = new FakeSpawner();
    await start(root, spawner);
    expect(spawner.jobs).toHaveLength(0);
    fs.mkdirSync(path.join(root, 'vault/AGENTS/counter'), { recursive: true });
    fs.writeFileSync(path.join(root, 'vault/AGENTS/counter/PROFILE.md'), COUNTER);
    await waitFor('the claim', () => exists(root, 'vault/KANBAN/in-progress/orphan.md'));
  });

  it('works in polling mode (network filesystems)', async () => {
    const root = makeBoard({ 'AGENTS/counter/PROFILE.md': COUNTER });
    const spawner = new FakeSpawner();
    await start(root, spawner, { poll: true });
    fs.writeFileSync(path.join(root, 'vault/KANBAN/pending/polled.md'), newCard());
    await waitFor('the claim', () => exists(root, 'vault/KANBAN/in-progress/polled.md'));
  });

  it('survives the vault vanishing for a while and watches again when it is back', async () => {
    const root = makeBoard({ 'AGENTS/counter/PROFILE.md': COUNTER });
    const spawner = new FakeSpawner();
    const { handle, ends } = await start(root, spawner);
    let down = 0;
    handle.events.on('watcher:down', () => (down += 1));
    const vault = path.join(root, 'vault');
    const away = path.join(root, 'vault-away');

    fs.renameSync(vault, away);
    // The rounds that follow find no board: they fail, the watcher is closed, retries back off.
    await waitFor('the vault noticed gone', () => down > 0 && ends.some((e) => e.endsWith(':failed')));
    fs.renameSync(away, vault);
    // Nothing is watching now: the retry finds the vault, re-establishes the watcher, and from
    // then on a dropped card is claimed by signal again.
    await waitFor('a round after the vault came back', () => ends.at(-1)?.endsWith(':ok'));
    fs.writeFileSync(path.join(vault, 'KANBAN/pending/after.md'), newCard());
    await waitFor('the claim after the vault came back', () => exists(root, 'vault/KANBAN/in-progress/after.md'));
  });

  it('stop() finishes the round, releases the lock and leaves nothing scheduled', async () => {
    const root = makeBoard({ 'AGENTS/counter/PROFILE.md': COUNTER });
    const spawner = new FakeSpawner();
    const { handle } = await start(root, spawner);
    fs.writeFileSync(path.join(root, 'vault/KANBAN/pending/late.md'), newCard());
    await handle.stop();
    expect(exists(root, 'vault/KANBAN/.board.lock')).toBe(false);
  });
});
