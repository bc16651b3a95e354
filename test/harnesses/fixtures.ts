import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBoard, type LoadedBoard } from '../../src/config/load-config.js';
import { composeCommand, type ComposedCommand } from '../../src/core/compose.js';
import { pickModel } from '../../src/core/models.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const HARNESSES = path.join(REPO, 'harnesses');
export const SHIPPED = ['claude-code', 'codex', 'opencode', 'local-model'] as const;
export const NODE_DIR = path.dirname(process.execPath);

/** Private values that must never reach an argv or a prompt. */
export const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-TEST-never-in-argv-0001',
  OPENAI_API_KEY: 'sk-openai-TEST-never-in-argv-0002',
  LOCAL_MODEL_API_KEY: 'llama-TEST-never-in-argv-0003',
};

export const CARD_NAME = '2026-12-01-weekly-digest.md';

export const PROFILE = `---
name: writer
version: 1
description: Writes short notes from the inputs it is given.
function: write
handles: [weekly digest]
skills: [write-digest]
---
# Mission
Write the weekly digest.
`;

export const CARD = `---
function: write
request: weekly digest of the inbox
created: 2026-12-01
origin: human
paths: []
attempts: 0
inputs:
  source: notes/inbox.md
destination: digests/2026-12-01.md
agent: writer
claimed: 2026-12-01T09:00:00.000Z
model: local-gguf
---
Summarise the inbox in three bullets.

## Record
- 2026-12-01 09:00
    - board: claimed for writer.
`;

export function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `board-h7-${prefix}-`));
}

export function write(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return root;
}

/** A board over a fixture vault, using the shipped harnesses (or a copy) and models.yml. */
export function makeBoard(harnessesDir = HARNESSES): { root: string; vault: string; config: string; card: string } {
  const root = tmp('board');
  write(root, {
    'vault/AGENTS/writer/PROFILE.md': PROFILE,
    [`vault/KANBAN/in-progress/${CARD_NAME}`]: CARD,
    'vault/notes/inbox.md': '- call the plumber\n- book the venue\n- send the invoice\n',
    'private.env': Object.entries(SECRETS).map(([k, v]) => `${k}=${v}`).join('\n') + '\n',
    'board.yml': `vault: vault\nharnesses: ${harnessesDir}\nmodels: ${path.join(REPO, 'models.yml')}\ndefault_harness: claude-code\nprivate_env: private.env\nlogs: logs\n`,
  });
  const vault = path.join(root, 'vault');
  return { root, vault, config: path.join(root, 'board.yml'), card: path.join(vault, 'KANBAN', 'in-progress', CARD_NAME) };
}

/** Compose exactly as `board tick` does (src/round/dispatch-cards.ts) for the fixture card. */
export async function compose(name: string, fixture = makeBoard()): Promise<{ board: LoadedBoard; command: ComposedCommand; model: string } & ReturnType<typeof makeBoard>> {
  const board = await loadBoard({ config: fixture.config, cwd: fixture.root, env: {} });
  const harness = board.harnesses.get(name);
  if (!harness) throw new Error(`no harness ${name}: ${JSON.stringify(board.harnessProblems)}`);
  const picked = pickModel(board.models, name, 'standard', 'text');
  if (!picked.ok) throw new Error(picked.reason);
  const result = composeCommand({
    harness,
    model: picked.model,
    profile: path.join(fixture.vault, 'AGENTS', 'writer', 'PROFILE.md'),
    card: fixture.card,
    vault: fixture.vault,
    privateEnv: board.privateEnv,
    boardEnv: { BOARD_CARD: fixture.card, BOARD_CLAIM: '2026-12-01T09:00:00.000Z', BOARD_VAULT: fixture.vault, BOARD_CONFIG: fixture.config },
    fallbackPath: '/usr/bin:/bin',
    resolveDir: (dir) => path.resolve(fixture.vault, dir),
    harnessesDir: board.config.harnessesDir,
  });
  if (!result.ok) throw new Error(result.reason);
  return { board, command: result.command, model: picked.model, ...fixture };
}

/**
 * A fake agent CLI: records its argv, cwd, environment and the files of its isolated config dirs
 * into $FAKE_RECORD, prints `--version`, exits with $FAKE_EXIT.
 */
export function fakeCli(dir: string, name: string, version = `9.9.9 (fake ${name})`): string {
  const file = path.join(dir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    file,
    `#!${process.execPath}
const fs = require('node:fs'); const path = require('node:path');
if (process.argv[2] === '--version') { console.log(${JSON.stringify(version)}); process.exit(0); }
const files = {};
const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const f = path.join(dir, e.name); if (e.isDirectory()) walk(f); else files[f] = fs.readFileSync(f, 'utf8'); } };
for (const v of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'OPENCODE_CONFIG_DIR']) if (process.env[v]) walk(process.env[v]);
if (process.env.OPENCODE_CONFIG_DIR && process.env.XDG_CONFIG_HOME && fs.existsSync(path.join(process.env.XDG_CONFIG_HOME, 'opencode'))) walk(path.join(process.env.XDG_CONFIG_HOME, 'opencode'));
const homeEntries = process.env.HOME && fs.existsSync(process.env.HOME) ? fs.readdirSync(process.env.HOME).sort() : null;
fs.writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, files, homeEntries }));
process.exit(Number(process.env.FAKE_EXIT || 0));
`,
    { mode: 0o755 },
  );
  return file;
}

export interface Record {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  files: { [file: string]: string };
  homeEntries: string[] | null;
}

export function readRecord(file: string): Record {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record;
}
