import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newCard } from '../../src/card/new.js';
import { buildProgram } from '../../src/cli.js';
import { cardNoteCommand } from '../../src/commands/card.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { initCommand, shellQuote } from '../../src/commands/init.js';
import { traceCommand } from '../../src/commands/trace.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { launchdLabel, systemdUnits } from '../../src/install/units.js';
import { silentLogger } from '../../src/log.js';
import { harnessSchema } from '../../src/schema/harness.js';
import { fitNames, kanbanText } from '../../src/status/kanban.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { card, makeBoard } from '../helpers/vault.js';

/** The smaller items of issue 19, each with its test. */
const NOW = '2026-12-02T10:00:00.000Z';
const README = fs.readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

function envFor(cwd: string) {
  const out: string[] = [];
  const env: CommandEnv = { cwd, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) };
  return { env, text: () => out.join('') };
}

describe('board init in a folder with a space, an accent and a quote', () => {
  it("prints its next step as an absolute, shell-quoted cd that a shell takes back to the folder", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'board-init-'));
    const dir = path.join(parent, "with space é and 'quote'");
    const { env, text } = envFor(parent);
    expect(await initCommand(dir, { now: NOW }, env)).toBe(0);
    expect(text()).toContain(`  cd '${parent}/with space é and '\\''quote'\\'''\n`);
    const cdLine = text().split('\n').find((l) => l.startsWith('  cd '))!.trim();
    // The line works as printed, from anywhere.
    expect(execFileSync('sh', ['-c', `${cdLine} && pwd`], { cwd: os.tmpdir(), encoding: 'utf8' }).trim()).toBe(dir);
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
  });

  it('prints no cd when run in the folder itself', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-init-here-'));
    const { env, text } = envFor(dir);
    await initCommand(undefined, { now: NOW }, env);
    expect(text()).not.toContain('  cd ');
  });
});

describe('board card new --priority', () => {
  it.each([['URGENT', 'urgent'], [' Normal ', 'normal']])('%j is accepted as the census reads it, and written %s', async (given, written) => {
    const root = makeBoard({});
    const layout = new VaultLayout(path.join(root, 'vault'));
    const result = await newCard({ layout, now: new Date(NOW), maxAttempts: 3, env: {}, cwd: root }, { function: 'write', request: 'a note', priority: given });
    expect(parseFrontMatter(fs.readFileSync(result.file, 'utf8')).data.priority).toBe(written);
  });
});

describe('status --board never shows two cards as one', () => {
  const a = '2026-12-02-write-a-blog-post-draft-about-kanban-boards.md';
  const b = '2026-12-02-write-a-blog-post-draft-about-kanban-boards-2.md';
  it('cuts in the middle, keeping the distinguishing end', () => {
    const [x, y] = fitNames([a, b], 20);
    expect(x).not.toBe(y);
    expect(x!.length).toBe(20);
    expect(y).toMatch(/…[^…]*-2\.md$/);
    expect(x).toMatch(/^2026-/);
  });

  it('keeps the start when only the start differs', () => {
    const names = ['2026-12-01-the-very-same-long-request-here.md', '2026-12-02-the-very-same-long-request-here.md'];
    const shown = fitNames(names, 16);
    expect(new Set(shown).size).toBe(2);
  });

  it('in the whole view, at a narrow width', () => {
    const out = kanbanText({ scheduled: [], pending: [{ text: a, mark: '…' }, { text: b, mark: '…' }], inProgress: [], done: [] }, 80);
    const rows = out.split('\n').slice(2, 4).map((l) => l.split(' │ ')[1]);
    expect(rows[0]).not.toBe(rows[1]);
  });

  it("a template's due time is never cut", () => {
    const cells = [{ text: '12-03 09:00 a-rather-long-template-name-indeed', mark: '⏱', keep: 12 }];
    expect(kanbanText({ scheduled: cells, pending: [], inProgress: [], done: [] }, 100)).toContain('⏱ 12-03 09:00 a-…ndeed');
    // Too narrow for the time and a bit of the name: the end goes, the time's start stays.
    expect(kanbanText({ scheduled: cells, pending: [], inProgress: [], done: [] }, 60)).toContain('⏱ 12-03 09:…');
  });
});

describe('the timer units', () => {
  const spec = { name: 'board-tick', node: '/usr/bin/node', cli: '/opt/b/dist/cli.js', args: ['tick'], intervalSeconds: 300, workingDirectory: '/b', logsDir: '/b/logs', vault: '/b/vault' };
  it('the user unit waits on no network-online.target (a user manager has none)', () => {
    const [service] = systemdUnits(spec, '/u');
    expect(service!.content).not.toContain('network-online');
    expect(service!.content).toContain('KillMode=process');
  });

  it("the README's units are the ones board install writes: KillMode=process, the same names and label", () => {
    const [service, timer] = systemdUnits(spec, '/u');
    for (const line of ['Type=oneshot', 'KillMode=process']) expect(service!.content).toContain(line);
    for (const line of ['[Service]', 'Type=oneshot', 'KillMode=process', '# ~/.config/systemd/user/board-tick.service', '# ~/.config/systemd/user/board-tick.timer']) expect(README).toContain(line);
    for (const line of timer!.content.split('\n').filter((l) => /^(OnBootSec|AccuracySec|Persistent|Unit|WantedBy)=/.test(l))) expect(README).toContain(line);
    expect(README).toContain(`<string>${launchdLabel('board-tick')}</string>`);
    expect(README).toContain(`~/Library/LaunchAgents/${launchdLabel('board-tick')}.plist`);
    expect(README).not.toMatch(/org\.atomic-board/);
  });
});

describe('help and README', () => {
  it('--help says the config is board.yml here or in the nearest folder above, as the lookup does', () => {
    const program = buildProgram();
    const tick = program.commands.find((c) => c.name() === 'tick')!;
    expect(tick.helpInformation().replace(/\s+/g, ' ')).toContain('board.yml in the current folder or the nearest folder above it');
    expect(tick.helpInformation()).not.toContain('./board.yml');
  });

  it("the README's harness table lists every field a harness file takes, timeout and cost among them", () => {
    const table = README.slice(README.indexOf('### Harness (`harnesses/<name>.yml`)'));
    for (const field of Object.keys(harnessSchema.shape).filter((f) => f !== 'description')) expect(table).toContain(`| \`${field}\` |`);
  });
});

describe('board trace', () => {
  it("shows a card:noted event's text", async () => {
    const root = makeBoard({ 'KANBAN/pending/x.md': card('function: write\nrequest: x\ncreated: 2026-12-01\norigin: human') });
    await cardNoteCommand('x.md', 'waiting for the legal team', { config: 'board.yml', now: NOW }, envFor(root).env);
    const { env, text } = envFor(root);
    expect(await traceCommand('x.md', { config: 'board.yml', now: NOW }, env)).toBe(0);
    expect(text()).toMatch(/card:noted x\.md \[human\] .* — noted on pending\/x\.md: "waiting for the legal team"/);
  });
});

describe('a bad vault path for the card verbs', () => {
  it.each([['/'], ['/nonexistent-vault-19']])('BOARD_VAULT=%s board card note: one line, no stack', (vault) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BOARD_')) env[k] = v;
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'board-novault-'));
    const result = spawnSync(process.execPath, [CLI, 'card', 'note', 'x.md', 'hello'], { cwd, encoding: 'utf8', env: { ...env, BOARD_VAULT: vault } });
    expect(result.status).toBe(2);
    expect(result.stderr).not.toContain('unexpected failure');
    expect(result.stderr.trim().split('\n')).toEqual([`board: no board at ${vault}: ${path.join(vault, 'KANBAN')} does not exist (the vault comes from BOARD_VAULT: is it right?)`]);
    expect(fs.existsSync(path.join(vault, 'KANBAN'))).toBe(false);
  });
});
