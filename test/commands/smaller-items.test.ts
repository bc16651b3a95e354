import { describe, expect, it } from 'vitest';
import { cardNoteCommand, unblockCommand } from '../../src/commands/card.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { describeEvent } from '../../src/commands/log.js';
import { planText } from '../../src/commands/render-plan.js';
import type { Plan } from '../../src/core/types.js';
import type { JournalEvent } from '../../src/journal/event.js';
import { openJournal } from '../../src/journal/journal.js';
import { traceMermaid } from '../../src/journal/mermaid.js';
import { chooseLogFormat, silentLogger } from '../../src/log.js';
import { sumCosts } from '../../src/provenance/cost.js';
import type { RunManifest } from '../../src/provenance/manifest.js';
import { statusText, type BoardStatus } from '../../src/status/board-status.js';
import { card, makeBoard } from '../helpers/vault.js';
import path from 'node:path';

const NOW = '2026-12-02T10:00:00.000Z';

function envFor(root: string) {
  const out: string[] = [];
  const env: CommandEnv = { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) };
  return { env, text: () => out.join('') };
}

const emptyPlan: Plan = { now: NOW, scheduled: [], dispatch: [], waiting: [], blocked: [], zombies: [], invalid: [], profiles: [], profileProblems: [], templateProblems: [] };

describe('the smaller items of issue 15', () => {
  it('logs: readable on a terminal, JSON otherwise, unless --log-format says', () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('tick says what it blocked; dry-run what it will block', () => {
    const plan: Plan = { ...emptyPlan, blocked: [{ card: 'x.md', reason: 'foreign origin "web" (not in trusted_origins)', new: true }] };
    expect(planText(plan, 'tick', true)).toContain('x.md — blocked now: foreign origin');
    expect(planText(plan, 'dry-run')).toContain('x.md — will block: foreign origin');
  });

  it('status says a kind once: "ambiguous between a and b: a, b tie …", not "ambiguous …: ambiguous: …"', () => {
    const s = {
      now: NOW, vault: '/v', counts: { pending: 1, inProgress: 0, done: 0, archive: 0, scheduled: 0, ready: 0, blocked: 0, waiting: 1, unreadable: 0 },
      ready: [], unmatched: [], blocked: [], inProgress: [], falseCloses: [], unreadable: [], leftOut: [], warnings: [], notCards: [], cannotStart: [], couldNotStart: [], templates: [], debris: [], lastRound: null,
      waiting: [{ card: 'x.md', kind: 'ambiguous', profiles: ['a', 'b'], reason: 'ambiguous: a, b tie on descriptors of 4 characters (a: "post"; b: "post")' }],
    } satisfies BoardStatus;
    expect(statusText(s)).toContain('x.md — ambiguous between a and b: a, b tie on descriptors of 4 characters');
    expect(statusText(s)).not.toContain('ambiguous: a, b');
  });

  it("cost --by flow counts a director's own runs under the flow its children name it director of", () => {
    const m = (card: string, flow?: string, director?: string, tokens = 10) => ({ run: card, card, profile: 'p', model: 'm', harness: 'h', claim: NOW, ...(flow ? { flow } : {}), ...(director ? { director } : {}), cost: { tokens } }) as unknown as RunManifest;
    const rows = sumCosts([m('brief.md', undefined, undefined, 5), m('child-1.md', 'weekly', 'brief.md'), m('child-2.md', 'weekly', 'KANBAN/in-progress/brief.md'), m('alone.md', undefined, undefined, 1)], 'flow');
    expect(rows.map((r) => [r.key, r.runs, r.tokens])).toEqual([
      ['(no flow)', 1, 1],
      ['weekly', 3, 25],
    ]);
  });

  it('trace --mermaid: a flowchart with one lane per card and an arrow per cause', () => {
    const ev = (id: string, kind: string, card: string, profile?: string): JournalEvent => ({ id, at: '2026-12-02T10:00:00.000Z', kind, actor: 'board', card, ...(profile ? { profile } : {}) }) as JournalEvent;
    const tree = { event: ev('1', 'card:created', 'brief.md'), own: true, children: [{ event: ev('2', 'card:claimed', 'brief.md', 'editor'), own: true, children: [{ event: ev('3', 'card:created', 'child "1".md'), own: false, children: [] }] }] };
    expect(traceMermaid([tree], (e) => `${e.kind} [${e.profile ?? e.actor}]`)).toBe(
      [
        'flowchart TD',
        '  subgraph c1["brief.md"]',
        '    e1["card:created [board]"]',
        '    e2["card:claimed [editor]"]',
        '  end',
        '  subgraph c2["child #quot;1#quot;.md"]',
        '    e3["card:created [board]"]',
        '  end',
        '  e1 --> e2',
        '  e2 --> e3',
        '',
      ].join('\n'),
    );
  });

  it("journals a note's text and a failure's reason, and board log shows them", async () => {
    const root = makeBoard({ 'KANBAN/pending/x.md': card('function: write\nrequest: x\ncreated: 2026-12-01\norigin: human') });
    const { env } = envFor(root);
    expect(await cardNoteCommand('x.md', 'waiting for the legal team', { config: 'board.yml', now: NOW }, env)).toBe(0);
    const { events } = await openJournal(path.join(root, 'logs')).read();
    const noted = events.find((e) => e.kind === 'card:noted')!;
    expect(noted.data).toEqual({ text: 'waiting for the legal team' });
    expect(describeEvent(noted)).toContain(': "waiting for the legal team"');
    expect(describeEvent({ ...noted, kind: 'card:failed', data: { reason: 'the input is empty' } })).toContain(': the input is empty');
  });

  it('unblock of a foreign card warns that the next round blocks it again', async () => {
    const root = makeBoard({
      'KANBAN/pending/foreign.md': card('function: write\nrequest: x\ncreated: 2026-12-01\norigin: web-form\nblocked: 2026-12-01 foreign origin "web-form" (not in trusted_origins)'),
      'KANBAN/pending/mine.md': card('function: write\nrequest: x\ncreated: 2026-12-01\norigin: Human\nblocked: 2026-12-01 a human must decide'),
    });
    const foreign = envFor(root);
    expect(await unblockCommand('foreign.md', { config: 'board.yml', now: NOW }, foreign.env)).toBe(0);
    expect(foreign.text()).toContain('warning: its origin "web-form" is not in trusted_origins, so the next round blocks it again as foreign');
    const mine = envFor(root);
    expect(await unblockCommand('mine.md', { config: 'board.yml', now: NOW }, mine.env)).toBe(0);
    expect(mine.text()).not.toContain('warning');
  });
});
