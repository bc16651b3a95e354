import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';

/** The built CLI (`npm test` builds first), driven as a real process with a fake clock. */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const DIRECTOR = '2026-12-01-weekly-briefing.md';

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BOARD_')) env[k] = v;
  return env;
}

function board(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: cleanEnv() });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function copyExamples(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-flow-'));
  fs.cpSync(EXAMPLES, root, { recursive: true, filter: (src) => !/[/\\](logs|outputs|summaries|digests)([/\\]|$)/.test(path.relative(EXAMPLES, src)) });
  return root;
}

/** Poll (bounded) until every run record on the board has ended: workers are real detached processes. */
async function runsSettled(vault: string, timeoutMs = 30_000): Promise<void> {
  const dir = path.join(vault, 'KANBAN/.runs');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
    const open = records.filter((f) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).state === 'started';
      } catch {
        return true; // being written
      }
    });
    // A claim whose supervisor has not written its record yet shows as a card in in-progress/.
    const claimed = fs.readdirSync(path.join(vault, 'KANBAN/in-progress')).filter((f) => f.endsWith('.md') && !f.startsWith('.'));
    if (open.length === 0 && claimed.length === 0) return;
    if (Date.now() > deadline) throw new Error(`runs still open after ${timeoutMs}ms: ${[...open, ...claimed].join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const front = (file: string) => parseFrontMatter(fs.readFileSync(file, 'utf8')).data;

describe('a director flow across ticks (built CLI, example vault, model-free worker)', () => {
  beforeAll(() => {
    if (!fs.existsSync(CLI) || !fs.existsSync(path.join(path.dirname(CLI), 'card/yield.js'))) throw new Error('dist/ is missing or stale: run `npm run build` (npm test does)');
  });

  it('runs briefing-editor to the end: step 1, yield, step 2, yield, close with the final paths', async () => {
    const root = copyExamples();
    const vault = path.join(root, 'vault');
    const config = path.join(root, 'board.yml');
    const start = Date.parse('2026-12-02T09:00:00Z');
    let ticks = 0;
    while (!fs.existsSync(path.join(vault, 'KANBAN/done', DIRECTOR)) && ticks < 12) {
      ticks += 1;
      const result = board(root, 'tick', '--config', config, '--now', new Date(start + ticks * 60_000).toISOString());
      expect(result.code, result.stderr).toBe(0);
      await runsSettled(vault);
    }
    expect(fs.existsSync(path.join(vault, 'KANBAN/done', DIRECTOR))).toBe(true);
    expect(ticks).toBeGreaterThanOrEqual(5); // director, step 1, director, step 2, director

    const done = fs.readdirSync(path.join(vault, 'KANBAN/done'));
    const children = done.filter((f) => f.endsWith('.md') && f !== DIRECTOR && front(path.join(vault, 'KANBAN/done', f)).director === DIRECTOR);
    expect(children).toHaveLength(2);
    const [extract, write] = ['extract', 'write'].map((fn) => children.find((c) => front(path.join(vault, 'KANBAN/done', c)).function === fn)!);
    const extractCard = front(path.join(vault, 'KANBAN/done', extract!));
    const writeCard = front(path.join(vault, 'KANBAN/done', write!));
    expect(extractCard).toMatchObject({ origin: 'briefing-editor', recipient: 'action-extractor', flow: 'weekly-briefing', agent: 'action-extractor' });
    // Wiring rule: step 2's input is step 1's output.
    expect(writeCard.inputs).toEqual({ actions: (extractCard.paths as string[])[0] });

    const directorText = fs.readFileSync(path.join(vault, 'KANBAN/done', DIRECTOR), 'utf8');
    const director = parseFrontMatter(directorText).data;
    expect(director).toMatchObject({ attempts: 0, paths: writeCard.paths, inputs: { notes: 'notes/meeting-2026-11-30.md', dependent_task: `KANBAN/done/${write}` } });
    expect(directorText.match(/wiring self-check passed/g)).toHaveLength(2);
    expect(directorText.match(/board: claimed for briefing-editor/g)).toHaveLength(3);
    expect(fs.readFileSync(path.join(vault, (writeCard.paths as string[])[0]!), 'utf8')).toContain('- Ana writes the watcher.');
    // Nothing left in progress, nothing blocked on the way.
    expect(fs.readdirSync(path.join(vault, 'KANBAN/in-progress')).filter((f) => f.endsWith('.md'))).toEqual([]);
  }, 240_000);

  it('maps refusals to exit 1 and bad usage to exit 2; needs no config when BOARD_VAULT is set', () => {
    const root = copyExamples();
    const vault = path.join(root, 'vault');
    const refused = board(root, 'card', 'close', '2026-12-01-count-words.md', '--path', 'notes/inbox.md', '--vault', vault);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('close needs it in in-progress/');
    expect(board(root, 'card', 'new', '--function', 'count', '--vault', vault).code).toBe(2);
    const env = { ...cleanEnv(), BOARD_VAULT: vault };
    const created = spawnSync(process.execPath, [CLI, 'card', 'new', '--function', 'count', '--request', 'Count words in the inbox', '--input', 'notes=notes/inbox.md'], { cwd: os.tmpdir(), encoding: 'utf8', env });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/KANBAN\/pending\/\d{4}-\d{2}-\d{2}-count-words-in-the-inbox\.md$/);
    expect(front(created.stdout.trim())).toMatchObject({ origin: 'human', inputs: { notes: 'notes/inbox.md' } });
  });
});
