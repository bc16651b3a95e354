import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import { statusCommand } from '../../src/commands/status.js';
import { tickCommand } from '../../src/commands/tick.js';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import { silentLogger } from '../../src/log.js';
import { runIdFor } from '../../src/core/zombies.js';
import { EMPTY_CLOSE_MILESTONE } from '../../src/format/empty-close.js';
import { hostIdentity } from '../../src/vault/host-identity.js';
import { card, FakeSpawner, makeBoard, profile } from '../helpers/vault.js';

const NOW = '2026-12-02T10:00:00.000Z';

function envFor(root: string) {
  const out: string[] = [];
  const env: CommandEnv = { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) };
  return { env, text: () => out.join('') };
}

const base = 'created: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []';

function board() {
  const root = makeBoard({
    'AGENTS/summarizer/PROFILE.md': profile('summarizer', 'function: summarize\nhandles: [meeting notes]\nskills: [s]'),
    'AGENTS/digester/PROFILE.md': profile('digester', 'function: summarize\nhandles: [weekly digest]\nskills: [s]'),
    'KANBAN/pending/ready.md': card(`function: summarize\nrequest: the meeting notes\n${base}`),
    'KANBAN/pending/unmatched.md': card(`function: translate\nrequest: into Basque\n${base}`),
    'KANBAN/pending/ambiguous.md': card(`function: summarize\nrequest: meeting notes into the weekly digest\n${base}`),
    'KANBAN/pending/needs-input.md': card(`function: summarize\nrequest: the meeting notes\ninputs:\n  notes: notes/tomorrow.md\n${base}`),
    'KANBAN/pending/stuck.md': card(`function: summarize\nrequest: the meeting notes\nblocked: 2026-11-30 14:00 suspicious request\n${base}`),
    'KANBAN/in-progress/working.md': card(`function: summarize\nrequest: the meeting notes\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []\nagent: summarizer\nclaimed: 2026-12-02T08:30:00.000Z\nmodel: fake-medium`),
    'KANBAN/done/real.md': card(`function: summarize\nrequest: x\n${base.replace('paths: []', 'paths: [summaries/x.md]')}\nclosed: 2026-12-01 12:00`),
    'KANBAN/done/false.md': card(`function: summarize\nrequest: x\n${base}\nagent: summarizer\nclosed: 2026-12-01 12:00`, '\n## Record\n- 2026-12-01 12:00\n    - summarizer: Card closed.\n'),
    'KANBAN/done/justified.md': card(`function: summarize\nrequest: x\n${base}\nclosed: 2026-12-01 12:00`, `\n## Record\n- 2026-12-01 12:00\n    - summarizer: ${EMPTY_CLOSE_MILESTONE} nothing new this week.\n`),
    'KANBAN/archive/2026-11/old.md': card(`function: summarize\nrequest: x\n${base}`),
  });
  // The worker of working.md: a run record whose supervisor pid is this very (alive) process.
  const runs = path.join(root, 'vault/KANBAN/.runs');
  fs.mkdirSync(runs, { recursive: true });
  fs.writeFileSync(
    path.join(runs, `${runIdFor('working.md', '2026-12-02T08:30:00.000Z', 0)}.json`),
    JSON.stringify({ runId: 'x', card: 'working.md', claim: '2026-12-02T08:30:00.000Z', state: 'started', ...hostIdentity(), pid: process.pid }),
  );
  return root;
}

describe('board status', () => {
  it('shows counts, why each card waits, blocked with date, in-progress with age and worker, false closes', async () => {
    const root = board();
    const { env, text } = envFor(root);
    expect(await statusCommand({ config: 'board.yml', now: NOW, json: true }, env)).toBe(0);
    const s = JSON.parse(text());
    expect(s.counts).toEqual({ pending: 5, inProgress: 1, done: 3, archive: 1, scheduled: 0, ready: 1, blocked: 1, waiting: 3, unreadable: 0 });
    expect(s.ready).toEqual([{ card: 'ready.md', profile: 'summarizer', harness: 'fake', model: 'fake-medium' }]);
    expect(s.waiting).toEqual([
      expect.objectContaining({ card: 'ambiguous.md', kind: 'ambiguous', profiles: ['digester', 'summarizer'] }),
      expect.objectContaining({ card: 'needs-input.md', kind: 'input', reason: expect.stringContaining('notes/tomorrow.md') }),
      expect.objectContaining({ card: 'unmatched.md', kind: 'unmatched' }),
    ]);
    expect(s.unmatched).toEqual(['unmatched.md']);
    expect(s.blocked).toEqual([{ card: 'stuck.md', state: 'pending', since: '2026-11-30 14:00', reason: 'suspicious request' }]);
    expect(s.inProgress).toEqual([
      { card: 'working.md', agent: 'summarizer', model: 'fake-medium', claimed: '2026-12-02T08:30:00.000Z', ageMs: 90 * 60_000, age: '1h30m', worker: 'alive', pid: process.pid },
    ]);
    expect(s.falseCloses).toEqual([{ card: 'false.md', closed: '2026-12-01 12:00', agent: 'summarizer' }]);
    expect(s.lastRound).toBeNull();
  });

  it("for a person: says an unmatched card is the next agent to write, and names the tie", async () => {
    const root = board();
    const { env, text } = envFor(root);
    await statusCommand({ config: 'board.yml', now: NOW }, env);
    const out = text();
    expect(out).toContain("you've just found the next agent you need to write");
    expect(out).toContain('ambiguous.md — ambiguous between digester and summarizer');
    expect(out).toContain('needs-input.md — missing input');
    expect(out).toContain('stuck.md — suspicious request (since 2026-11-30 14:00)');
    expect(out).toContain('working.md — summarizer on fake-medium, claimed 1h30m ago, worker alive');
    expect(out).toContain('false.md — closed by summarizer');
    expect(out).not.toContain('justified.md');
    expect(out).toContain('last round: none recorded');
  });

  it("shows the last round's time and outcome, written by tick and never by dry-run", async () => {
    const root = board();
    const dry = envFor(root);
    await dryRunCommand({ config: 'board.yml', now: NOW }, dry.env);
    expect(fs.existsSync(path.join(root, 'logs/last-round.json'))).toBe(false);
    const tick = envFor(root);
    await tickCommand({ config: 'board.yml', now: NOW }, tick.env, new FakeSpawner());
    const { env, text } = envFor(root);
    await statusCommand({ config: 'board.yml', now: NOW, json: true }, env);
    const s = JSON.parse(text());
    expect(s.lastRound).toMatchObject({ time: NOW, outcome: 'ok', by: 'tick', counts: { dispatch: 1, 'did:claimed': 1, 'did:spawned': 1 } });
    expect(s.counts.inProgress).toBe(2);
  });
});
