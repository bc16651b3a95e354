import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import { statusCommand } from '../../src/commands/status.js';
import { runIdFor } from '../../src/core/zombies.js';
import { silentLogger } from '../../src/log.js';
import { kanbanText, ROWS } from '../../src/status/kanban.js';
import { card, makeBoard, profile } from '../helpers/vault.js';

const NOW = '2026-12-02T10:00:00.000Z'; // a Wednesday

function envFor(root: string) {
  const out: string[] = [];
  const env: CommandEnv = { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) };
  return { env, text: () => out.join('') };
}

const base = 'created: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []';

/** A board with everything status must not hide. */
function troubledBoard(): string {
  const root = makeBoard({
    'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post]\nrefuse: [legal contract]\nskills: [s]'),
    'AGENTS/translator/PROFILE.md': profile('translator', 'function: translate\nhandle: [into basque]\nskills: [s]'),
    'AGENTS/twin-a/PROFILE.md': profile('twin', 'function: review\nhandles: [review]\nskills: [s]'),
    'AGENTS/twin-b/PROFILE.md': profile('twin', 'function: review\nhandles: [proofread]\nskills: [s]'),
    'KANBAN/pending/post.md': card(`function: write\nrequest: a blog post\npriority: Urgent\n${base}`),
    'KANBAN/pending/basque.md': card(`function: Translate\nrequest: into Basque\n${base}`),
    'KANBAN/pending/review.md': card(`function: review\nrequest: review this\n${base}`),
    'KANBAN/pending/poetry.md': card(`function: poetry\nrequest: a poem\n${base}`),
    'KANBAN/pending/typo.md': card(`function: write\nrequest: a blog post\npriorty: urgent\n${base}`),
    'KANBAN/pending/broken.md': '---\nfunction: [write\n---\n',
    'KANBAN/pending/notes.txt': 'not a card\n',
    'KANBAN/pending/drafts/keep.md': card(`function: write\nrequest: x\n${base}`),
    'KANBAN/pending/cannot-start.md': card(`function: write\nrequest: a blog post about harnesses\n${base}`),
    'KANBAN/scheduled/weekly.md': card('function: write\nrequest: the weekly blog post\norigin: scheduler\ntrigger:\n  every: week\n  day: friday\n  time: "09:00"'),
  });
  // Debris: the temp file of an interrupted write and a retired lock.
  fs.writeFileSync(path.join(root, 'vault/KANBAN/pending/.post.md.4242.0a1b2c3d.tmp'), 'half a card');
  fs.mkdirSync(path.join(root, 'vault/KANBAN/.board.lock.0123456789abcdef.retired'));
  // A worker that could not start: the run record the supervisor writes for a spawn that failed.
  const runs = path.join(root, 'vault/KANBAN/.runs');
  fs.mkdirSync(runs, { recursive: true });
  const runId = runIdFor('cannot-start.md', '2026-12-02T09:00:00.000Z', 0);
  fs.writeFileSync(path.join(runs, `${runId}.json`), JSON.stringify({ runId, card: 'cannot-start.md', claim: '2026-12-02T09:00:00.000Z', state: 'exited', host: os.hostname(), start: '2026-12-02T09:00:01.000Z', startError: { code: 'ENOENT', message: 'spawn my-agent-cli ENOENT' } }));
  return root;
}

describe('board status tells the truth', () => {
  it('left-out profiles with why, an unmatched card whose profile is left out, unreadable cards, non-cards, warnings, workers that could not start', async () => {
    const root = troubledBoard();
    const { env, text } = envFor(root);
    expect(await statusCommand({ config: 'board.yml', now: NOW, json: true }, env)).toBe(0);
    const s = JSON.parse(text());
    expect(s.counts).toMatchObject({ pending: 7, unreadable: 1 });
    expect(s.leftOut).toEqual([
      { file: 'AGENTS/translator/PROFILE.md', field: 'handles', reason: '`handles` is required: a list of phrases this profile takes, e.g. `handles: [meeting notes, call transcript]` (`handle` on line 6 looks like a typo of it)' },
      { file: 'AGENTS/twin-a/PROFILE.md', field: 'name', reason: expect.stringContaining('`name` "twin" is also declared by AGENTS/twin-b/PROFILE.md: two profiles cannot share a name') },
      { file: 'AGENTS/twin-b/PROFILE.md', field: 'name', reason: expect.stringContaining('`name` "twin" is also declared by AGENTS/twin-a/PROFILE.md') },
    ]);
    const waiting = Object.fromEntries(s.waiting.map((w: { card: string; reason: string }) => [w.card, w.reason]));
    expect(waiting['basque.md']).toContain('its profile AGENTS/translator/PROFILE.md is left out (`handles` is required');
    expect(waiting['review.md']).toContain('its profiles AGENTS/twin-a/PROFILE.md, AGENTS/twin-b/PROFILE.md are left out');
    // Only the card no profile could take is "the next agent to write".
    expect(s.unmatched).toEqual(['poetry.md']);
    expect(s.unreadable).toEqual([expect.objectContaining({ file: 'broken.md', reason: expect.stringContaining('invalid YAML') })]);
    expect(s.notCards).toEqual([
      { file: 'drafts', reason: 'not a card: a folder' },
      { file: 'notes.txt', reason: 'not a card: only files named *.md are cards' },
    ]);
    expect(s.warnings).toEqual([
      { file: 'AGENTS/writer/PROFILE.md', field: 'refuse', line: 7, reason: '`refuse` is not a profile field: did you mean `refuses`?' },
      { file: 'typo.md', field: 'priorty', line: 4, reason: '`priorty` is not a card field: did you mean `priority`?' },
    ]);
    // The status env has no PATH: the fake harness names its program by path, so it can start.
    expect(s.cannotStart).toEqual([]);
    expect(s.couldNotStart).toEqual([{ card: 'cannot-start.md', runId: runIdFor('cannot-start.md', '2026-12-02T09:00:00.000Z', 0), code: 'ENOENT', message: 'spawn my-agent-cli ENOENT', at: '2026-12-02T09:00:01.000Z' }]);
    expect(s.debris).toEqual([
      { file: '.board.lock.0123456789abcdef.retired', reason: expect.stringMatching(/^a round lock taken over from a dead holder, 0 min old/) },
      { file: 'pending/.post.md.4242.0a1b2c3d.tmp', reason: expect.stringMatching(/^the temp file of an interrupted write, 0 min old/) },
    ]);
    expect(s.templates).toEqual([{ template: 'weekly.md', next: expect.stringMatching(/^2026-12-04 09:00$/) }]);
  });

  it('for a person, the same facts in sections; the dry-run says the same about a left-out profile', async () => {
    const root = troubledBoard();
    const { env, text } = envFor(root);
    await statusCommand({ config: 'board.yml', now: NOW }, env);
    const out = text();
    expect(out).toContain('pending 7 (ready 3, waiting 3, blocked 0, unreadable 1)');
    expect(out).toContain('profiles and templates left out (fix them: the round ignores them) (3)\n  AGENTS/translator/PROFILE.md: `handles` is required');
    expect(out).toContain('workers that could not start (a harness problem: no attempt spent) (1)\n  cannot-start.md — ENOENT: spawn my-agent-cli ENOENT');
    expect(out).toContain('not cards (in pending/, left alone) (2)\n  drafts — not a card: a folder');
    expect(out).toContain('warnings (2)\n  AGENTS/writer/PROFILE.md (line 7): `refuse` is not a profile field: did you mean `refuses`?');
    expect(out).toContain('1 unmatched card');
    const dry = envFor(root);
    await dryRunCommand({ config: 'board.yml', now: NOW }, dry.env);
    expect(dry.text()).toContain('basque.md — no profile has function "Translate"; its profile AGENTS/translator/PROFILE.md is left out');
    expect(dry.text()).toContain('warnings (2)\n  AGENTS/writer/PROFILE.md (line 7): `refuse` is not a profile field');
  });

  it('--board: columns that fit the width, urgent first and marked, the next due time of each template', async () => {
    const root = troubledBoard();
    const { env, text } = envFor(root);
    await statusCommand({ config: 'board.yml', now: NOW, board: true, width: '80' } as never, env);
    const lines = text().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^scheduled \(1\)\s+│ pending \(7\)\s+│ in-progress \(0\)\s+│ done \(0\)$/);
    expect(lines[2]).toContain('⏱ 12-04 09:00 we…');
    expect(lines[2]).toContain('│ ! post.md');
    expect(text()).toContain('× broken.md');
  });

  it('--board cuts a long column with "+N more"', () => {
    const many = Array.from({ length: ROWS + 4 }, (_, i) => ({ text: `card-${i}.md`, mark: '…' }));
    const out = kanbanText({ scheduled: [], pending: many, inProgress: [], done: [] }, 100);
    expect(out).toContain('+4 more');
    expect(out).not.toContain(`card-${ROWS}.md`);
  });
});
