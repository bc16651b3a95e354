import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { card, makeBoard, profile } from '../helpers/vault.js';

/** Deaf and circular director flows (issue 19), through the built CLI: flagged, then repaired. */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const NOW = '2026-12-02T10:00:00Z';

function board(cwd: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BOARD_')) env[k] = v;
  const result = spawnSync(process.execPath, [CLI, ...args, '--now', NOW], { cwd, encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const CHIEF = profile('chief', 'function: edit\nhandles: [weekly issue]\nprofiles: [writer]\nfailure_policy: block');
const WRITER = profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post]');
const base = 'created: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []';
const director = (request: string, waitsOn: string) => card(`function: edit\nrequest: ${request}\n${base}\ninputs:\n  dependent_task: KANBAN/done/${waitsOn}`, '\n## Record\n');
const child = (of: string, paths = '[]') => card(`function: write\nrequest: a blog post\n${base.replace('paths: []', `paths: ${paths}`)}\nflow: weekly\ndirector: ${of}`);
const dependentTask = (root: string, name: string) => (parseFrontMatter(fs.readFileSync(path.join(root, 'vault/KANBAN/pending', name), 'utf8')).data.inputs as Record<string, string>).dependent_task;

describe('a deaf director', () => {
  it('is flagged by lint and status with the closest names, then repaired with rewire', () => {
    const root = makeBoard({
      'AGENTS/chief/PROFILE.md': CHIEF,
      'AGENTS/writer/PROFILE.md': WRITER,
      // A hand edit dropped a letter: the child exists as -items, the director waits on -itms.
      'KANBAN/pending/2026-12-01-weekly-issue.md': director('the weekly issue', '2026-12-01-extract-action-itms.md'),
      'KANBAN/done/2026-12-01-extract-action-items.md': child('2026-12-01-weekly-issue.md', '[notes/actions.md]'),
      'notes/actions.md': '- do it\n',
    });
    fs.mkdirSync(path.join(root, 'vault/AGENTS/writer/skills/write-post'), { recursive: true });
    fs.writeFileSync(path.join(root, 'vault/AGENTS/writer/skills/write-post/SKILL.md'), '# write-post\n');

    const lint = board(root, 'lint');
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain(
      'KANBAN/pending/2026-12-01-weekly-issue.md: inputs.dependent_task: deaf: no card named 2026-12-01-extract-action-itms.md anywhere (pending, in-progress, done, archive); did you mean 2026-12-01-extract-action-items.md? repair it with `board card rewire 2026-12-01-weekly-issue.md --until CHILD`  [flows]',
    );
    const status = board(root, 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('flows that wait forever (deaf or circular: repair with `board card rewire`) (1)');
    expect(status.stdout).toContain('2026-12-01-weekly-issue.md — deaf: no card named 2026-12-01-extract-action-itms.md anywhere');
    expect(JSON.parse(board(root, 'status', '--json').stdout).flows).toEqual([expect.objectContaining({ card: '2026-12-01-weekly-issue.md', kind: 'deaf' })]);

    const children = board(root, 'card', 'children', '2026-12-01-weekly-issue.md');
    expect(children.code).toBe(0);
    expect(children.stdout).toContain('2026-12-01-weekly-issue.md: 1 child; waits on KANBAN/done/2026-12-01-extract-action-itms.md\n  done/         2026-12-01-extract-action-items.md  [flow weekly]\n');

    const rewire = board(root, 'card', 'rewire', '2026-12-01-weekly-issue.md', '--until', '2026-12-01-extract-action-items.md');
    expect(rewire.code, rewire.stderr).toBe(0);
    expect(dependentTask(root, '2026-12-01-weekly-issue.md')).toBe('KANBAN/done/2026-12-01-extract-action-items.md');
    expect(board(root, 'lint').stdout).not.toContain('[flows]');
    const after = board(root, 'status', '--json');
    expect(JSON.parse(after.stdout).flows).toBeUndefined();
    // Repaired: the child is in done/, so the director is ready for the next round.
    expect(JSON.parse(board(root, 'dry-run', '--json').stdout).dispatch).toEqual([expect.objectContaining({ card: '2026-12-01-weekly-issue.md', profile: 'chief' })]);
  });
});

describe('two directors waiting on each other', () => {
  it('are flagged as a cycle by lint and status, and one rewire breaks it', () => {
    const root = makeBoard({
      'AGENTS/chief/PROFILE.md': CHIEF,
      'KANBAN/pending/a.md': director('issue a', 'b.md'),
      'KANBAN/pending/b.md': director('issue b', 'a.md'),
      'KANBAN/in-progress/a-step.md': child('a.md'),
    });
    const lint = board(root, 'lint');
    expect(lint.code).toBe(1);
    expect(lint.stdout).toContain('KANBAN/pending/a.md: inputs.dependent_task: circular: a.md → b.md → a.md wait on each other through dependent_task; none is in done/, so none ever wakes');
    expect(lint.stdout).toContain('KANBAN/pending/b.md: inputs.dependent_task: circular: b.md → a.md → b.md');
    const status = JSON.parse(board(root, 'status', '--json').stdout);
    expect(status.flows.map((f: { card: string; kind: string }) => [f.card, f.kind])).toEqual([['a.md', 'cycle'], ['b.md', 'cycle']]);

    const wrong = board(root, 'card', 'rewire', 'a.md', '--until', 'b.md');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('wiring self-check failed: b.md names null as its director, not a.md; nothing written');

    const rewire = board(root, 'card', 'rewire', 'a.md', '--until', 'a-step.md');
    expect(rewire.code, rewire.stderr).toBe(0);
    expect(rewire.stdout).toContain('rewired a.md: inputs.dependent_task = KANBAN/done/a-step.md; it sleeps until a-step.md closes (now in in-progress/)');
    expect(board(root, 'lint').stdout).not.toContain('[flows]');
    expect(JSON.parse(board(root, 'status', '--json').stdout).flows).toBeUndefined();
  });
});

describe('board profile new --director', () => {
  it('writes a director profile (profiles + failure_policy, no skills) that lints clean', () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'AGENTS/writer/skills/write-post/SKILL.md': '# write-post\n' });
    const made = board(root, 'profile', 'new', 'issue-editor', '--director', '--profiles', 'writer', '--function', 'edit', '--handles', 'weekly issue');
    expect(made.code, made.stderr).toBe(0);
    const dir = path.join(root, 'vault/AGENTS/issue-editor');
    const data = parseFrontMatter(fs.readFileSync(path.join(dir, 'PROFILE.md'), 'utf8')).data;
    expect(data).toMatchObject({ name: 'issue-editor', function: 'edit', profiles: ['writer'], failure_policy: 'block' });
    expect(data).not.toHaveProperty('skills');
    expect(fs.existsSync(path.join(dir, 'skills'))).toBe(false);
    const lint = board(root, 'lint');
    expect(lint.stdout).not.toContain('issue-editor');
    // A chained profile that does not exist yet is lint's to say.
    expect(board(root, 'profile', 'new', 'other-editor', '--director', '--profiles', 'writer,reviewer').code).toBe(0);
    expect(board(root, 'lint').stdout).toContain('AGENTS/other-editor/PROFILE.md: profiles.1: profile "reviewer" is not in AGENTS/');
    expect(board(root, 'profile', 'new', 'x', '--director').stderr).toContain('--director needs --profiles a,b');
    expect(board(root, 'profile', 'new', 'y', '--profiles', 'writer').code).toBe(2);
  });
});
