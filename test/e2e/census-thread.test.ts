import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import { CENSUS_READER_SCRIPT } from '../../src/entry-points.js';
import { silentLogger } from '../../src/log.js';
import { READ_AHEAD_MIN_FILES } from '../../src/vault/read-ahead.js';
import { card, makeBoard, profile } from '../helpers/vault.js';

/**
 * The built CLI reads a big census through its reader thread (dist/census-reader.cjs); the same
 * board planned in this process reads every file on one thread (from src/ there is no built
 * reader script). The two plans must be the same document, byte for byte, with every odd entry
 * among thousands of cards.
 */

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const BUILT_READER = fileURLToPath(new URL('../../dist/census-reader.cjs', import.meta.url));
const NOW = '2026-12-02T10:00:00.000Z';

function hostileBigBoard(): string {
  const files: Record<string, string> = {
    'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [draft, blog post]\nrefuses: [poem]\nskills: [write]'),
    'AGENTS/editor/PROFILE.md': profile('editor', 'function: write\nhandles: [blog post draft]\nskills: [edit]'),
    'AGENTS/broken/PROFILE.md': '---\nname: broken\n---\n',
  };
  const requests = ['a blog post draft', 'a poem draft', 'a draft', 'something else', 'Ünïcödé draft'];
  for (let i = 0; i < READ_AHEAD_MIN_FILES + 400; i++) {
    const n = String(i).padStart(5, '0');
    const priority = i % 7 === 0 ? 'priority: urgent\n' : '';
    const created = `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T09:${String(i % 60).padStart(2, '0')}:00.000Z`;
    files[`KANBAN/pending/card-${n}.md`] = card(`function: ${i % 11 === 0 ? 'translate' : 'write'}\nrequest: ${requests[i % requests.length]} ${n}\ncreated: ${created}\norigin: ${i % 13 === 0 ? 'web-form' : 'human'}\n${priority}attempts: 0\npaths: []`);
  }
  Object.assign(files, {
    'KANBAN/pending/zz-crlf.md': card('function: write\nrequest: a draft\ncreated: 2026-11-02\norigin: human').replace(/\n/g, '\r\n'),
    'KANBAN/pending/zz-no-front-matter.md': 'just text\n',
    'KANBAN/pending/zz-empty.md': '',
    'KANBAN/pending/zz-bad-yaml.md': '---\nfunction: [write\n---\n',
    'KANBAN/pending/zz-missing-field.md': card('function: write\ncreated: 2026-11-02\norigin: human'),
    'KANBAN/pending/zz-notes.txt': 'not a card\n',
  });
  // Named to sort after the first thousand cards: the ones the reader thread reads, not the main thread while it starts.
  const root = makeBoard(files);
  const pending = path.join(root, 'vault/KANBAN/pending');
  fs.writeFileSync(path.join(pending, 'zz-binary.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0xc3, 0x28, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]));
  fs.symlinkSync(path.join(pending, 'card-00001.md'), path.join(pending, 'zz-a-link.md'));
  fs.mkdirSync(path.join(pending, 'zz-a-folder.md'));
  execFileSync('mkfifo', [path.join(pending, 'zz-a-fifo.md')]);
  fs.writeFileSync(path.join(pending, `${'x'.repeat(200)}.md`), card('function: write\nrequest: a draft\ncreated: 2026-11-02\norigin: human'));
  return root;
}

describe.runIf(fs.existsSync(CLI) && fs.existsSync(BUILT_READER))('census: the reader thread changes nothing', () => {
  it('the built CLI (reader thread) and this process (one thread) print the same plan for a big board with odd entries', async () => {
    // Which path each side takes: the CLI has its reader script beside it; src/ has none.
    expect(fs.existsSync(CENSUS_READER_SCRIPT)).toBe(false);
    const root = hostileBigBoard();
    const config = path.join(root, 'board.yml');

    const cli = spawnSync(process.execPath, [CLI, 'dry-run', '--json', '--config', config, '--now', NOW], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(cli.status, cli.stderr).toBe(0);

    const out: string[] = [];
    const code = await dryRunCommand({ config, now: NOW, json: true }, { cwd: root, env: process.env, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) });
    expect(code).toBe(0);
    expect(cli.stdout).toBe(out.join(''));

    // And the board was what it should be: every kind of verdict among thousands of cards.
    const plan = JSON.parse(cli.stdout) as { dispatch: unknown[]; waiting: unknown[]; blocked: unknown[]; invalid: { file: string }[]; problems: unknown[] };
    expect(plan.dispatch.length).toBeGreaterThan(0);
    expect(plan.blocked.length).toBeGreaterThan(0);
    expect(plan.waiting.length).toBeGreaterThan(READ_AHEAD_MIN_FILES / 2);
    expect(plan.invalid.map((p) => p.file)).toEqual(expect.arrayContaining(['zz-a-fifo.md', 'zz-a-folder.md', 'zz-a-link.md', 'zz-bad-yaml.md', 'zz-binary.md', 'zz-empty.md', 'zz-missing-field.md', 'zz-no-front-matter.md', 'zz-notes.txt']));
    expect(plan.problems.length).toBeGreaterThan(0);
  }, 60_000);
});
