import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBoard, type LoadedBoard } from '../../src/config/load-config.js';
import type { RunJob, Spawner } from '../../src/round/spawner.js';
import { silentLogger } from '../../src/log.js';
import { VaultLayout } from '../../src/vault/layout.js';
import type { RoundContext } from '../../src/round/context.js';

/** A real folder tree from a map of relative path -> contents (changesets' fixture habit). */
export function makeTree(files: Record<string, string>, root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-test-'))): string {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return root;
}

/** Every file below `root` with its bytes, for before/after comparisons. */
export function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // The card transition locks' folder, once every lock is released, is the board's own
        // bookkeeping: left empty by a refused verb. A lock left inside it still shows.
        if (entry.name === '.locks' && fs.readdirSync(full).length === 0) continue;
        out.set(`${path.relative(root, full)}/`, '');
        walk(full);
      } else out.set(path.relative(root, full), fs.readFileSync(full).toString('base64'));
    }
  };
  walk(root);
  return out;
}

export const BOARD_YML = `vault: vault
harnesses: harnesses
models: models.yml
default_harness: fake
logs: logs
`;

/** `{harnesses}/fake-agent`: a program that exists (makeBoard writes it), so the board can start it. */
export const FAKE_HARNESS = `command: ["{harnesses}/fake-agent", "--model", "{model}", "{prompt}"]
prompt_template: "profile={profile} card={card}"
credential_guard: guard.sh
`;

export const MODELS = `fake:
  minimum: fake-small
  standard: fake-medium
  advanced: fake-large
`;

export function profile(name: string, fields: string): string {
  return `---\nname: ${name}\nversion: 1\ndescription: The ${name} profile.\n${fields.trim()}\n---\n\n# ${name}\n`;
}

export function card(fields: string, body = ''): string {
  return `---\n${fields.trim()}\n---\n${body}`;
}

/** A valid pending card asking a `write` profile for a blog post draft; `extra` adds fields. */
export const pendingCard = (extra = '', body = '\nBody text.\n') =>
  card(`
function: write
request: Write a blog post draft about kanban
created: 2026-12-01 09:00
origin: human
paths: []
attempts: 0
${extra}`, body);

/** A dispatcher tree (config, harness, models) with a vault holding `vaultFiles`. */
export function makeBoard(vaultFiles: Record<string, string>, extra: Record<string, string> = {}): string {
  const files: Record<string, string> = {
    'board.yml': BOARD_YML,
    'harnesses/fake.yml': FAKE_HARNESS,
    'harnesses/guard.sh': '#!/bin/sh\nexit 0\n',
    'harnesses/fake-agent': '#!/bin/sh\nexit 0\n',
    'models.yml': MODELS,
    'vault/KANBAN/pending/.keep': '',
    'vault/KANBAN/in-progress/.keep': '',
    'vault/KANBAN/done/.keep': '',
    ...extra,
  };
  for (const [rel, text] of Object.entries(vaultFiles)) files[`vault/${rel}`] = text;
  const root = makeTree(files);
  if (fs.existsSync(path.join(root, 'harnesses/fake-agent'))) fs.chmodSync(path.join(root, 'harnesses/fake-agent'), 0o755);
  return root;
}

export class FakeSpawner implements Spawner {
  readonly jobs: RunJob[] = [];
  fail?: Error;
  async start(job: RunJob): Promise<{ pid?: number }> {
    if (this.fail) throw this.fail;
    this.jobs.push(job);
    return { pid: 4242 };
  }
}

export async function roundContext(root: string, now: Date, spawner: Spawner = new FakeSpawner()): Promise<RoundContext & { board: LoadedBoard }> {
  const board = await loadBoard({ cwd: root, env: {}, config: 'board.yml' });
  return { board, layout: new VaultLayout(board.config.vault), now, spawner, logger: silentLogger() };
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

export function exists(root: string, rel: string): boolean {
  return fs.existsSync(path.join(root, rel));
}
