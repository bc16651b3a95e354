import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { runCli, type Run } from './harness.js';

/**
 * A full disk and a read-only one, for real: the vault on a small tmpfs (filled up, or remounted
 * read-only). Verbs and ticks then fail with one line that names the file, never a stack trace,
 * and leave every card readable where it was. Needs root (mount); skips loudly without it.
 */

const NOW = '2026-12-02T10:00:00.000Z';
const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');
const FIELDS = 'function: write\nrequest: draft\ncreated: 2026-12-01T09:00:00.000Z\norigin: human\nattempts: 0\npaths: []';
const mounted: string[] = [];

function canMount(): boolean {
  const probe = fs.mkdtempSync('/tmp/board-mount-probe-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

const MOUNTS = canMount();
if (!MOUNTS) console.warn('SKIPPED: test/reliability/mounts.test.ts needs `mount -t tmpfs` (root); the full and read-only disk cases did not run on this machine');

/** A board whose vault lives on its own tmpfs of `size`. */
function boardOnTmpfs(size: string, vaultFiles: Record<string, string>): { root: string; vault: string } {
  const root = makeBoard(vaultFiles, { 'board.yml': 'vault: vault\ndefault_harness: fake\nlogs: logs\n' });
  const vault = path.join(root, 'vault');
  fs.renameSync(vault, `${vault}.made`);
  fs.mkdirSync(vault);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', vault]);
  mounted.push(vault);
  fs.cpSync(`${vault}.made`, vault, { recursive: true });
  return { root, vault };
}

function fill(dir: string): void {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  // The last partial blocks too, so even a one-byte write fails.
  const small = Buffer.alloc(1, 1);
  for (let i = 0; i < 64; i += 1) {
    try {
      fs.writeFileSync(path.join(dir, `.f${i}`), small);
    } catch {
      break;
    }
  }
}

afterAll(() => {
  for (const dir of mounted.reverse()) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    } catch {
      // Already gone.
    }
  }
});

function oneCleanLine(run: Run, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).not.toMatch(/unexpected failure|\n\s+at /);
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('board:'));
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

function everyCardParses(vault: string): void {
  for (const state of ['pending', 'in-progress', 'done']) {
    for (const name of fs.readdirSync(path.join(vault, 'KANBAN', state)).filter((n) => n.endsWith('.md'))) {
      expect(() => parseFrontMatter(fs.readFileSync(path.join(vault, 'KANBAN', state, name), 'utf8')), `${state}/${name}`).not.toThrow();
    }
  }
}

describe.skipIf(!MOUNTS)('a full disk and a read-only disk', () => {
  it('full: a verb fails in one line naming the file; the tick never corrupts or cycles a card', async () => {
    const { root, vault } = boardOnTmpfs('256k', { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/a.md': card(FIELDS, '\nBody.\n') });
    const before = fs.readFileSync(path.join(vault, 'KANBAN/pending/a.md'), 'utf8');
    fill(vault);
    const note = await runCli(root, ['card', 'note', 'a.md', 'progress', '--now', NOW]);
    // The file is named when the failing call reports one (a write through a handle does not).
    oneCleanLine(note, /^board: (?:\S+ \/.*: )?no space left on the device \(ENOSPC\)$/);
    expect(fs.readFileSync(path.join(vault, 'KANBAN/pending/a.md'), 'utf8')).toBe(before);
    for (let i = 0; i < 2; i += 1) {
      const tick = await runCli(root, ['tick', '--now', NOW]);
      expect(tick.stderr).not.toMatch(/unexpected failure|\n\s+at /);
      everyCardParses(vault);
    }
    expect(fs.readdirSync(path.join(vault, 'KANBAN/pending')).filter((n) => n.startsWith('.') && n !== '.keep')).toEqual([]);
  });

  it('read-only: a verb and a tick fail in one line naming the path; nothing changes', async () => {
    const { root, vault } = boardOnTmpfs('1m', { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/a.md': card(FIELDS, '\nBody.\n') });
    execFileSync('mount', ['-o', 'remount,ro', vault]);
    const note = await runCli(root, ['card', 'note', 'a.md', 'progress', '--now', NOW]);
    // The first write a verb makes (its card lock, or the card's temp file) names its path.
    oneCleanLine(note, /^board: \S+ \/.*\/KANBAN\/\S+: the filesystem is read-only \(EROFS\)$/);
    const tick = await runCli(root, ['tick', '--now', NOW]);
    oneCleanLine(tick, /cannot take the round lock in .*KANBAN.*EROFS|read-only/);
    everyCardParses(vault);
    expect(fs.existsSync(path.join(vault, 'KANBAN/pending/a.md'))).toBe(true);
  });
});
