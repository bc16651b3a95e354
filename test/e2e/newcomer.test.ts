import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/** A newcomer's first hour (issue 15), through the built CLI as a process. */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const PACKAGE = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
const CARDS_DOC = fileURLToPath(new URL('../../docs/cards.md', import.meta.url));

function board(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const base = 'created: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []';
const WRITER = profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post]');

describe('a newcomer', () => {
  it('--version prints the package version', () => {
    const result = board(process.cwd(), ['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(PACKAGE.version);
  });

  it('finds board.yml in a parent folder, as git does, and says what to do when there is none', () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) });
    const deep = path.join(root, 'vault/notes/deeper');
    fs.mkdirSync(deep, { recursive: true });
    const found = board(deep, ['dry-run', '--json']);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout).dispatch).toEqual([expect.objectContaining({ card: 'post.md', profile: 'writer' })]);
    const nowhere = fs.mkdtempSync(path.join(path.dirname(root), 'no-board-'));
    const missing = board(nowhere, ['status']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no board.yml in ${nowhere} or any folder above it: run \`board init\``);
    expect(board(nowhere, ['lint']).stderr).toContain(`no board.yml in ${nowhere} or any folder above it`);
  });

  it('card show --json gives a worker the fields and the Record, BOM and CRLF and all', () => {
    const text = '\uFEFF---\r\nfunction: write\r\nrequest: "a blog post: #1"\r\npriority: Urgent\r\ninputs:\r\n  notes:\r\n    - notes/a.md\r\n    - notes/b.md\r\ncreated: 2026-12-01 09:00\r\norigin: human\r\n---\r\nBody.\r\n\r\n## Record\r\n- 2026-12-01 09:00\r\n    - human: card written.\r\n';
    const root = makeBoard({ 'KANBAN/pending/bom.md': text });
    const shown = board(root, ['card', 'show', 'bom.md', '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({
      card: 'bom.md',
      state: 'pending',
      folder: 'pending',
      file: path.join(root, 'vault/KANBAN/pending/bom.md'),
      fields: { function: 'write', request: 'a blog post: #1', priority: 'urgent', inputs: { notes: ['notes/a.md', 'notes/b.md'] }, created: '2026-12-01 09:00', origin: 'human', paths: [], attempts: 0 },
      body: 'Body.\r\n\r\n## Record\r\n- 2026-12-01 09:00\r\n    - human: card written.\r\n',
      record: [{ time: '2026-12-01 09:00', lines: ['human: card written.'] }],
    });
    expect(board(root, ['card', 'show', 'nope.md']).code).toBe(1);
  });

  it('profile new writes a commented profile that lints clean and takes its cards', () => {
    const root = makeBoard({ 'KANBAN/pending/notes.md': card(`function: summarize\nrequest: Summarize the meeting notes of Monday\n${base}`) });
    const made = board(root, ['profile', 'new', 'meeting-summarizer', '--function', 'summarize', '--handles', 'meeting notes']);
    expect(made.code).toBe(0);
    const file = path.join(root, 'vault/AGENTS/meeting-summarizer/PROFILE.md');
    expect(made.stdout.split('\n')[0]).toBe(file);
    expect(fs.readFileSync(file, 'utf8')).toContain('handles:                          # phrases it takes');
    expect(fs.existsSync(path.join(root, 'vault/AGENTS/meeting-summarizer/skills/summarize-meeting-notes/SKILL.md'))).toBe(true);
    expect(board(root, ['lint']).stdout).toMatch(/^lint: clean/);
    expect(JSON.parse(board(root, ['dry-run', '--json']).stdout).dispatch).toEqual([expect.objectContaining({ card: 'notes.md', profile: 'meeting-summarizer' })]);
    const again = board(root, ['profile', 'new', 'meeting-summarizer']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('AGENTS/meeting-summarizer already exists; nothing was written');
    expect(board(root, ['profile', 'new', 'Bad Name']).code).toBe(2);
  });

  it("a harness program missing from PATH: dry-run leaves the card waiting with why, lint fails, tick claims nothing", () => {
    const root = makeBoard(
      { 'AGENTS/writer/PROFILE.md': WRITER, 'AGENTS/writer/skills/write-post/SKILL.md': '# s\n', 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) },
      { 'harnesses/fake.yml': 'command: ["my-agent-cli", "{prompt}"]\nprompt_template: p\ncredential_guard: guard.sh\n' },
    );
    const env = { PATH: path.dirname(process.execPath) };
    const dry = JSON.parse(board(root, ['dry-run', '--json'], env).stdout);
    expect(dry.dispatch).toEqual([]);
    expect(dry.waiting).toEqual([{ card: 'post.md', kind: 'harness', reason: `ready for writer, but harness fake cannot start: \`my-agent-cli\` is not on its PATH (the board's PATH: ${path.dirname(process.execPath)})` }]);
    const lint = board(root, ['lint'], env);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain('fake.yml: command: harness fake cannot start: `my-agent-cli` is not on its PATH');
    const status = board(root, ['status'], env);
    expect(status.stdout).toContain(`harnesses that cannot start (their cards wait) (1)\n  fake — \`my-agent-cli\` is not on its PATH (the board's PATH: ${path.dirname(process.execPath)})`);
    expect(status.stdout).toContain('post.md — harness problem: ready for writer, but harness fake cannot start');
    const tick = board(root, ['tick', '--json'], env);
    expect(tick.code).toBe(0);
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/pending/post.md'))).toBe(true);
    expect(fs.readFileSync(path.join(root, 'vault/KANBAN/pending/post.md'), 'utf8')).toContain('attempts: 0');
  });

  it('--quiet prints nothing on stdout; logs are JSON lines when stderr is no terminal, readable with --log-format pretty', () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\n${base}`) }, { 'harnesses/bad.yml': 'command: oops\n' });
    const quiet = board(root, ['dry-run', '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    const json = board(root, ['dry-run']);
    const line = json.stderr.split('\n').find((l) => l.includes('harness left out'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 40, msg: 'harness left out', field: 'command' });
    const pretty = board(root, ['dry-run', '--log-format', 'pretty']);
    expect(pretty.stderr).toMatch(/WARN.*harness left out/);
    expect(() => JSON.parse(pretty.stderr.split('\n')[0]!)).toThrow();
    expect(board(root, ['dry-run', '--log-format', 'xml']).code).toBe(2);
  });

  it("docs/cards.md's run-and-close.sh works as written: reads its card with card show --json and closes it", async () => {
    const doc = fs.readFileSync(CARDS_DOC, 'utf8');
    const script = /```sh\n(#!\/bin\/sh\n# run-and-close\.sh[\s\S]*?)```/.exec(doc)?.[1];
    expect(script, 'the run-and-close.sh block in docs/cards.md').toBeDefined();
    const root = makeBoard(
      { 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\ndestination: posts/first.md\n${base}`) },
      {
        'harnesses/run-and-close.sh': script!,
        // The "agent" is echo: its stdout (the prompt) becomes the output.
        'harnesses/fake.yml': 'command: ["sh", "{harnesses}/run-and-close.sh", "echo", "{prompt}"]\nprompt_template: "Work {card}"\ncredential_guard: guard.sh\n',
      },
    );
    expect(board(root, ['tick']).code).toBe(0);
    const done = path.join(root, 'vault/KANBAN/done/post.md');
    await waitFor('post.md in done/', () => fs.existsSync(done), 20_000, 50);
    expect(fs.readFileSync(done, 'utf8')).toMatch(/^paths:\n {2}- posts\/first\.md$|^paths: \[posts\/first\.md\]$/m);
    expect(fs.readFileSync(path.join(root, 'vault/posts/first.md'), 'utf8')).toContain('Work ');
  }, 30_000);
});
