import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { failCard } from '../../src/card/fail.js';
import { cardSchema } from '../../src/schema/card.js';
import { acquireCardLock } from '../../src/vault/card-lock.js';
import { VaultLayout } from '../../src/vault/layout.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { runCli, type Run } from '../reliability/harness.js';

/**
 * Races of every pair of transitions, with real processes (the built CLI): started together, many
 * times each. Whatever the interleaving: one change wins, the other is refused with exit 1 and a
 * message saying where the card is now, nothing else is written, the card is in exactly one
 * folder, it parses, its fields are those of the winner, and a card that reached done/ is never
 * dispatched again.
 */

const CLAIM = '2026-11-01T08:30:00.000Z';
const REPEAT = 6;

const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');
const CHIEF = profile('chief', 'function: edit\nhandles: [weekly issue]\nprofiles: [writer]\nfailure_policy: block');

const claimed = (fields: string, agent = 'writer') =>
  card(`${fields.trim()}\ncreated: 2026-11-01T08:00:00.000Z\norigin: human\nattempts: 1\npaths: []\nagent: ${agent}\nclaimed: '${CLAIM}'\nmodel: none`, '\nA card.\n');

function raceBoard() {
  const root = makeBoard(
    {
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/chief/PROFILE.md': CHIEF,
      'KANBAN/in-progress/x.md': claimed('function: write\nrequest: "Write a draft about kanban"'),
      'KANBAN/in-progress/issue.md': claimed('function: edit\nrequest: "Produce the weekly issue"', 'chief'),
      'KANBAN/done/child.md': card('function: write\nrequest: "Write a draft for the issue"\ncreated: 2026-11-01T08:00:00.000Z\norigin: chief\nattempts: 0\npaths: [notes/out.md]\nflow: weekly\ndirector: issue.md\nclosed: 2026-11-01T09:00:00.000Z', '\nChild.\n'),
      'notes/out.md': 'the draft\n',
    },
    {
      // Every claim is a zombie at once: a tick racing a verb always tries to reclaim.
      'board.yml': 'vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: fake\nlogs: logs\nzombie_after: 1s\nmax_attempts: 5\nmax_dispatches_per_round: 0\n',
    },
  );
  // Their workers run on another host: only time (zombie_after) judges them, so a tick reclaims them as expired.
  const runs = path.join(root, 'vault/KANBAN/.runs');
  fs.mkdirSync(runs, { recursive: true });
  for (const name of ['x', 'issue']) {
    const runId = `${name}.20261101T083000000Z.a1`;
    fs.writeFileSync(path.join(runs, `${runId}.json`), JSON.stringify({ runId, card: `${name}.md`, claim: CLAIM, state: 'started', host: 'another-host', pid: 1 }));
  }
  return { root, vault: path.join(root, 'vault') };
}

const worker = (vault: string, name: string) => ({ BOARD_CARD: path.join(vault, 'KANBAN/in-progress', name), BOARD_CLAIM: CLAIM, BOARD_VAULT: vault });
const human = (vault: string) => ({ BOARD_VAULT: vault });

type Command = { args: string[]; env: (vault: string) => Record<string, string> };
const close: Command = { args: ['card', 'close', 'x.md', '--path', 'notes/out.md'], env: (v) => worker(v, 'x.md') };
const fail: Command = { args: ['card', 'fail', 'x.md', 'the notes were empty'], env: (v) => worker(v, 'x.md') };
const cancel: Command = { args: ['card', 'cancel', 'x.md', '--reason', 'wrong brief'], env: human };
const note: Command = { args: ['card', 'note', 'x.md', 'drafting the intro'], env: (v) => worker(v, 'x.md') };
const reclaim: Command = { args: ['tick', '--json'], env: () => ({}) };
const yieldIssue: Command = { args: ['card', 'yield', 'issue.md', '--until', 'child.md'], env: (v) => worker(v, 'issue.md') };
const archive: Command = { args: ['archive', '--older-than', '0s'], env: () => ({}) };

/** Where each card name is, over every state folder. */
function folders(vault: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const kanban = path.join(vault, 'KANBAN');
  const dirs = ['pending', 'in-progress', 'done'].map((f) => [f, path.join(kanban, f)] as const);
  const archive = path.join(kanban, 'archive');
  if (fs.existsSync(archive)) for (const m of fs.readdirSync(archive)) dirs.push([`archive/${m}`, path.join(archive, m)] as const);
  for (const [name, dir] of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.md') && !f.startsWith('.')) out.set(f, [...(out.get(f) ?? []), name]);
  }
  return out;
}

function cardIn(vault: string, name: string): { folder: string; data: Record<string, unknown>; text: string } {
  const where = folders(vault).get(name) ?? [];
  expect(where, `${name} is in ${where.join(' and ') || 'no folder'}`).toHaveLength(1);
  const text = fs.readFileSync(path.join(vault, 'KANBAN', where[0]!, name), 'utf8');
  const data = parseFrontMatter(text).data;
  expect(cardSchema.safeParse(data).success, `${name} no longer parses`).toBe(true);
  return { folder: where[0]!, data, text };
}

async function race(a: Command, b: Command): Promise<{ vault: string; root: string; runs: [Run, Run] }> {
  const { root, vault } = raceBoard();
  const runs = (await Promise.all([runCli(root, a.args, a.env(vault)), runCli(root, b.args, b.env(vault))])) as [Run, Run];
  return { root, vault, runs };
}

/** Exactly one of two verbs won; the loser exited 1 with one line saying why, and no stack trace. */
function oneWinner([a, b]: [Run, Run], ops: [string, string]): 0 | 1 {
  const codes = [a.code, b.code];
  expect(codes.sort(), `exit codes ${a.code}/${b.code}\n${a.stderr}\n${b.stderr}`).toEqual([0, 1]);
  const loser = a.code === 1 ? a : b;
  expect(loser.stderr).not.toMatch(/\n\s+at /);
  expect(loser.stderr).toMatch(/cannot|no longer|already|not /);
  // A loser that waited for the winner's lock names the change that came first: the winner's verb.
  const firstOp = /\(a (\w+) of \S+ by pid \d+ on .* came first\)/.exec(loser.stderr)?.[1];
  if (firstOp !== undefined) expect(firstOp).toBe(a.code === 0 ? ops[0] : ops[1]);
  return a.code === 0 ? 0 : 1;
}

/** After the race, a tick never dispatches a card that reached done/ (and none here is dispatchable anyway). */
async function neverDispatchedAgain(root: string, vault: string) {
  const doneBefore = folders(vault);
  const tick = await runCli(root, ['dry-run', '--json']);
  const plan = JSON.parse(tick.stdout) as { dispatch: { card: string }[] };
  for (const d of plan.dispatch) expect(doneBefore.get(d.card)).not.toContain('done');
}

describe('a verb that waited for another change of its card', () => {
  it('is judged on the card as the winner left it, and says which change came first', async () => {
    const { vault } = raceBoard();
    const layout = new VaultLayout(vault);
    const winner = await acquireCardLock(layout.kanban, 'x.md', 'close');
    const failing = failCard({ layout, now: new Date(), maxAttempts: 5, env: worker(vault, 'x.md'), cwd: vault }, 'x.md', 'it broke');
    setTimeout(() => {
      fs.renameSync(path.join(layout.inProgress, 'x.md'), path.join(layout.done, 'x.md'));
      void winner.release();
    }, 150);
    await expect(failing).rejects.toThrow(/no longer held \(the card is in done\/.*\(a close of x\.md by pid \d+ on .+ came first\)/);
    expect(cardIn(vault, 'x.md').folder).toBe('done');
  });
});

describe('racing transitions: one wins, the other is refused, the card is whole and in one folder', () => {
  it.each(Array.from({ length: REPEAT }, (_, i) => i))('close / fail (#%i)', async () => {
    const { root, vault, runs } = await race(close, fail);
    const winner = oneWinner(runs, ['close', 'fail']);
    const x = cardIn(vault, 'x.md');
    if (winner === 0) {
      expect(x.folder).toBe('done');
      expect(x.data).toMatchObject({ attempts: 1, paths: ['notes/out.md'], claimed: CLAIM });
      expect(x.text).not.toContain('failed: the notes were empty');
    } else {
      expect(x.folder).toBe('pending');
      expect(x.data).toMatchObject({ attempts: 2, paths: [] });
      expect(x.data.closed).toBeUndefined();
      expect(x.data.claimed).toBeUndefined();
    }
    await neverDispatchedAgain(root, vault);
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('close / close (#%i)', async () => {
    const { vault, runs } = await race(close, close);
    oneWinner(runs, ['close', 'close']);
    const x = cardIn(vault, 'x.md');
    expect(x.folder).toBe('done');
    expect(x.text.match(/Card closed\./g)).toHaveLength(1);
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('close / reclaim by a tick (#%i)', async () => {
    const { root, vault, runs } = await race(close, reclaim);
    expect(runs[1].code, runs[1].stderr).toBe(0);
    const transitions = (JSON.parse(runs[1].stdout) as { transitions: { kind: string; card: string }[] }).transitions.filter((t) => t.card === 'x.md');
    const x = cardIn(vault, 'x.md');
    if (runs[0].code === 0) {
      expect(x.folder).toBe('done');
      expect(x.data).toMatchObject({ attempts: 1, paths: ['notes/out.md'] });
      expect(transitions.every((t) => t.kind === 'failed')).toBe(true);
    } else {
      expect(runs[0].code).toBe(1);
      expect(x.folder).toBe('pending');
      expect(x.data).toMatchObject({ attempts: 2 });
      expect(x.data.closed).toBeUndefined();
      expect(transitions).toEqual([expect.objectContaining({ kind: 'reclaimed' })]);
    }
    await neverDispatchedAgain(root, vault);
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('yield / reclaim by a tick (#%i)', async () => {
    const { vault, runs } = await race(yieldIssue, reclaim);
    expect(runs[1].code, runs[1].stderr).toBe(0);
    const issue = cardIn(vault, 'issue.md');
    expect(issue.folder).toBe('pending');
    expect(issue.data.claimed).toBeUndefined();
    if (runs[0].code === 0) {
      // Yielded first: no attempt spent, asleep on its child; the reclaim found its claim gone.
      expect(issue.data).toMatchObject({ attempts: 1, inputs: { dependent_task: 'KANBAN/done/child.md' } });
    } else {
      expect(runs[0].code).toBe(1);
      expect(issue.data).toMatchObject({ attempts: 2 });
      expect(issue.data.inputs).toBeUndefined();
    }
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('cancel / close (#%i)', async () => {
    const { vault, runs } = await race(cancel, close);
    const winner = oneWinner(runs, ['cancel', 'close']);
    const x = cardIn(vault, 'x.md');
    if (winner === 0) {
      expect(x.folder).toBe('pending');
      expect(String(x.data.blocked)).toContain('cancelled: wrong brief');
      expect(x.data).toMatchObject({ attempts: 1 });
      expect(x.data.closed).toBeUndefined();
    } else {
      expect(x.folder).toBe('done');
      expect(x.data.blocked).toBeUndefined();
    }
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('fail / reclaim by a tick (#%i)', async () => {
    const { vault, runs } = await race(fail, reclaim);
    expect(runs[1].code, runs[1].stderr).toBe(0);
    const x = cardIn(vault, 'x.md');
    expect(x.folder).toBe('pending');
    // Either way one attempt is spent, never two, never none.
    expect(x.data).toMatchObject({ attempts: 2 });
    expect(x.data.claimed).toBeUndefined();
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('note / archive of a closed card (#%i)', async () => {
    const { vault, runs } = await race({ ...note, args: ['card', 'note', 'child.md', 'late milestone'], env: human }, archive);
    expect(runs[1].code, runs[1].stderr).toBe(0);
    expect(runs[0].code).toBe(1);
    const child = cardIn(vault, 'child.md');
    expect(child.folder).toBe('archive/2026-11');
    expect(child.text).not.toContain('late milestone');
  });

  it.each(Array.from({ length: REPEAT }, (_, i) => i))('note / fail (#%i): both may win, in some order, and nothing is lost', async () => {
    const { vault, runs } = await race(note, fail);
    expect(runs[1].code, runs[1].stderr).toBe(0);
    const x = cardIn(vault, 'x.md');
    expect(x.folder).toBe('pending');
    expect(x.data).toMatchObject({ attempts: 2 });
    // A note that came second finds the claim gone and is refused; one that came first is kept.
    if (runs[0].code === 0) expect(x.text).toContain('drafting the intro');
    else expect(x.text).not.toContain('drafting the intro');
  });
});
