import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { knownFields } from '../../src/messages.js';

/**
 * The README's quick start, run line by line as written (from an empty folder to a card in
 * done/): a README that stops working fails here. `board` is the built CLI.
 */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The shell lines between the quick-start markers, comments stripped. */
function quickStartLines(): string[] {
  const text = fs.readFileSync(README, 'utf8');
  const block = /<!-- quick-start[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/quick-start -->/.exec(text);
  if (!block) throw new Error('README.md has no quick-start block between its markers');
  return block[1]!.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}

/** A line split as a shell would for these simple lines: words, and "double-quoted" words. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'board-quick-start-'));
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

describe('README quick start', () => {
  it('takes an empty folder to a closed card, and a new profile that takes a new card', async () => {
    let cwd = empty;
    const outputs: { line: string; stdout: string }[] = [];
    for (const line of quickStartLines()) {
      const [program, ...args] = words(line);
      if (program === 'cd') {
        cwd = path.resolve(cwd, args[0]!);
        continue;
      }
      expect(program, `quick start line "${line}"`).toBe('board');
      // BOARD_CONFIG unset: the config is found from the cwd, as for a user.
      const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
      expect(result.status, `"${line}" exited ${result.status}: ${result.stderr}`).toBe(0);
      outputs.push({ line, stdout: result.stdout });
      if (args[0] === 'tick') {
        // The worker is detached: wait for it to close the example card.
        const done = path.join(cwd, 'vault/KANBAN/done');
        await waitFor('the example card in done/', () => fs.readdirSync(done).some((f) => f.endsWith('.md')), 30_000, 50);
      }
    }
    const board = path.join(empty, 'my-board');
    const done = fs.readdirSync(path.join(board, 'vault/KANBAN/done')).filter((f) => f.endsWith('.md'));
    expect(done).toHaveLength(1);
    const closed = fs.readFileSync(path.join(board, 'vault/KANBAN/done', done[0]!), 'utf8');
    expect(closed).toMatch(/^paths:\n {2}- notes\/what-this-board-does\.md$|^paths: \[notes\/what-this-board-does\.md\]$/m);
    expect(fs.existsSync(path.join(board, 'vault/notes/what-this-board-does.md'))).toBe(true);

    const lint = outputs.find((o) => o.line.startsWith('board lint'))!;
    expect(lint.stdout).toMatch(/^lint: clean/);
    const [firstDryRun, lastDryRun] = outputs.filter((o) => o.line.startsWith('board dry-run'));
    expect(firstDryRun!.stdout).toMatch(/dispatch \(1\)\n {2}\S+-write-a-short-note-about-what-this-board-does\.md → note-writer/);
    expect(lastDryRun!.stdout).toMatch(/\S+-summarize-the-meeting-notes-of-monday\.md → meeting-summarizer/);
    expect(outputs.find((o) => o.line.startsWith('board status'))!.stdout).toMatch(/done 1/);
  }, 90_000);

  it('writes a profile, a card and a scheduled template that show every field of the standard, commented, and that lint clean', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-init-fields-'));
    try {
      const made = spawnSync(process.execPath, [CLI, 'init', '--json'], { cwd: dir, encoding: 'utf8' });
      expect(made.status).toBe(0);
      const files = (JSON.parse(made.stdout) as { files: string[] }).files;
      const read = (prefix: string) => fs.readFileSync(path.join(dir, files.find((f) => f.startsWith(prefix))!), 'utf8');
      const mentions = (text: string, field: string) => new RegExp(`^#?\\s*${field}:|[ ,]${field}[,:]`, 'm').test(text);
      for (const field of knownFields('profile')) expect(mentions(read('vault/AGENTS/note-writer/PROFILE.md'), field), `profile field ${field}`).toBe(true);
      for (const field of knownFields('card').filter((f) => f !== 'trigger')) expect(mentions(read('vault/KANBAN/pending/'), field), `card field ${field}`).toBe(true);
      expect(read('vault/KANBAN/scheduled/')).toMatch(/^trigger:\n {2}every: week +# day \| week \| month$/m);
      for (const file of ['board.yml', 'harnesses/example.yml', 'vault/AGENTS/note-writer/PROFILE.md']) expect(read(file).split('\n').filter((l) => l.includes('#')).length, file).toBeGreaterThan(5);
      const lint = spawnSync(process.execPath, [CLI, 'lint'], { cwd: dir, encoding: 'utf8' });
      expect(lint.stdout).toMatch(/^lint: clean/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to init over an existing board, writing nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-init-twice-'));
    try {
      expect(spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, encoding: 'utf8' }).status).toBe(0);
      const before = fs.readFileSync(path.join(dir, 'board.yml'), 'utf8');
      fs.writeFileSync(path.join(dir, 'board.yml'), `${before}# mine\n`);
      const again = spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, encoding: 'utf8' });
      expect(again.status).toBe(2);
      expect(again.stderr).toContain('already holds board.yml');
      expect(fs.readFileSync(path.join(dir, 'board.yml'), 'utf8')).toBe(`${before}# mine\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
