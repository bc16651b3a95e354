import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { VaultWatcher } from '../../src/watch/vault-watcher.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The real watcher (native notifications) on a real folder: `KANBAN/` itself is watched from the
 * vault root by name, not by chokidar, and what the board writes inside `KANBAN/` (its lock, its
 * claim locks, run records) reports nothing.
 */
let watcher: VaultWatcher | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function watching(root: string): Promise<string[]> {
  const seen: string[] = [];
  watcher = new VaultWatcher({ poll: false, pollIntervalMs: 1000, stableMs: 20, logger: silentLogger(), onChange: (event, rel) => seen.push(`${event} ${rel}`) });
  await watcher.ensure(new VaultLayout(root));
  return seen;
}

describe('VaultWatcher (native)', () => {
  it('reports KANBAN/ appearing and vanishing in the vault root', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-vault-watcher-'));
    dirs.push(root);
    fs.mkdirSync(path.join(root, 'AGENTS'));
    const seen = await watching(root);
    fs.mkdirSync(path.join(root, 'KANBAN'));
    await waitFor('KANBAN/ appearing', () => seen.includes('addDir KANBAN'));
    fs.rmSync(path.join(root, 'KANBAN'), { recursive: true });
    await waitFor('KANBAN/ vanishing', () => seen.includes('unlinkDir KANBAN'));
  });

  it("reports a card dropped in pending/, and nothing for the board's own files in KANBAN/", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-vault-watcher-'));
    dirs.push(root);
    for (const d of ['AGENTS', 'KANBAN/pending', 'KANBAN/done', 'KANBAN/scheduled', 'KANBAN/in-progress']) fs.mkdirSync(path.join(root, d), { recursive: true });
    const seen = await watching(root);
    fs.mkdirSync(path.join(root, 'KANBAN/.board.lock'));
    fs.writeFileSync(path.join(root, 'KANBAN/.board.lock/owner.json'), '{}');
    fs.mkdirSync(path.join(root, 'KANBAN/.runs'));
    fs.writeFileSync(path.join(root, 'KANBAN/.runs/r.json'), '{}');
    fs.rmSync(path.join(root, 'KANBAN/.board.lock'), { recursive: true });
    fs.writeFileSync(path.join(root, 'KANBAN/in-progress/c.md'), 'x');
    fs.writeFileSync(path.join(root, 'card.tmp'), 'x');
    fs.renameSync(path.join(root, 'card.tmp'), path.join(root, 'KANBAN/pending/card.md'));
    await waitFor('the dropped card', () => seen.includes('add KANBAN/pending/card.md'));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(['add KANBAN/pending/card.md']);
  });
});
