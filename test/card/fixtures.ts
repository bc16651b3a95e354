import fs from 'node:fs';
import path from 'node:path';
import type { CardContext } from '../../src/card/context.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { card, makeBoard, pendingCard, profile } from '../helpers/vault.js';

export const NOW = new Date('2026-12-02T10:00:00.000Z');
export const CLAIM = '2026-12-02T09:59:00.000Z';

export const WRITER = profile('writer', `
function: write
handles: [blog post draft]
skills: [write-in-own-voice]
`);
export const DIRECTOR = profile('chief', `
function: edit
handles: [weekly issue]
profiles: [writer]
failure_policy: block
`);

export { pendingCard };

export const claimedCard = (agent = 'writer', extra = '', claim = CLAIM) =>
  pendingCard(`agent: ${agent}\nclaimed: '${claim}'\nmodel: fake-medium\n${extra}`);

export const directorCard = (extra = '') =>
  card(`
function: edit
request: Produce the weekly issue
created: 2026-12-01 08:00
origin: human
inputs:
  notes: notes/a.md
paths: []
attempts: 0
agent: chief
claimed: '${CLAIM}'
model: fake-medium
${extra}`, '\n## Record\n- 2026-12-01 08:00\n    - human: card written.\n');

/** A board (config + vault) with a writer, a director and the given vault files. */
export function board(vaultFiles: Record<string, string> = {}): { root: string; vault: string; layout: VaultLayout } {
  const root = makeBoard({
    'AGENTS/writer/PROFILE.md': WRITER,
    'AGENTS/chief/PROFILE.md': DIRECTOR,
    'notes/a.md': '# A\n\nAction: do it.\n',
    ...vaultFiles,
  });
  const vault = path.join(root, 'vault');
  return { root, vault, layout: new VaultLayout(vault) };
}

export function ctx(layout: VaultLayout, env: Record<string, string> = {}, over: Partial<CardContext> = {}): CardContext {
  return { layout, now: NOW, maxAttempts: 3, env, cwd: layout.root, ...over };
}

/** The env the dispatcher gives the worker of `name` (claimed at CLAIM). */
export function workerEnv(layout: VaultLayout, name: string, claim = CLAIM): Record<string, string> {
  return { BOARD_CARD: path.join(layout.inProgress, name), BOARD_CLAIM: claim, BOARD_VAULT: layout.root };
}

export function readVault(vault: string, rel: string): string {
  return fs.readFileSync(path.join(vault, rel), 'utf8');
}

export function has(vault: string, rel: string): boolean {
  return fs.existsSync(path.join(vault, rel));
}

/** Every card file name and the folders holding it. */
export function where(layout: VaultLayout): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const folders = ['pending', 'in-progress', 'done'].map((f) => [f, path.join(layout.kanban, f)] as const);
  if (fs.existsSync(layout.archive)) for (const m of fs.readdirSync(layout.archive)) folders.push([`archive/${m}`, path.join(layout.archive, m)] as const);
  for (const [name, dir] of folders) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.md') && !f.startsWith('.')) out.set(f, [...(out.get(f) ?? []), name]);
  }
  return out;
}
