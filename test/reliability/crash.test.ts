import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tickCommand } from '../../src/commands/tick.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { silentLogger } from '../../src/log.js';
import { FakeSpawner } from '../helpers/vault.js';
import { cardName, cardsByState, invariantProblems, recorded, recordingBoard, runCli, sleep, tally, type RecordingBoard } from './harness.js';

/**
 * Crash consistency. A tick is killed with SIGKILL at each seam of a round (BOARD_CRASH_AT, see
 * src/vault/crash-seam.ts) and at random moments; after each crash the vault parses and every card
 * is in exactly one state folder (or, after a crash inside a move, under two names as one file),
 * and the following ticks repair what needs it: the dead holder's lock is taken over, a torn
 * claim goes back, a claim that never started goes back, a double link loses its extra name.
 * In the end every card is closed exactly once and its worker was started exactly once.
 */

/** Tick until every card is in done/ (or the deadline), returning every tick's output. */
async function drain(board: RecordingBoard, names: readonly string[], deadlineMs = 45_000) {
  const outputs: { code: number | null; stdout: string; stderr: string }[] = [];
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const by = cardsByState(board.vault);
    if (by.done.length === names.length && by.pending.length === 0 && by['in-progress'].length === 0) return outputs;
    outputs.push(await runCli(board.root, ['tick']));
    expect(invariantProblems(board.vault, names, true)).toEqual([]);
    await sleep(700);
  }
  throw new Error(`not drained: ${JSON.stringify(cardsByState(board.vault))}\n${outputs.map((o) => o.stdout).join('\n')}`);
}

function expectEachStartedOnce(board: RecordingBoard, names: readonly string[]) {
  const perCard = tally(recorded(board.recordFile).map((r) => r.card));
  expect(names.filter((n) => perCard.get(n) !== 1).map((n) => `${n}: ${perCard.get(n) ?? 0}`)).toEqual([]);
}

const ZOMBIE = `---
function: write
request: "Write a draft left behind"
created: 2026-11-01T08:00:00.000Z
origin: human
attempts: 0
paths: []
agent: writer
claimed: 2026-11-01T08:30:00.000Z
model: none
---
Claimed long ago; its supervisor never ran.
`;

/** The cards in in-progress/, as text. */
function inProgressTexts(board: RecordingBoard): string[] {
  const dir = path.join(board.vault, 'KANBAN/in-progress');
  return fs.readdirSync(dir).filter((n) => n.endsWith('.md')).map((n) => fs.readFileSync(path.join(dir, n), 'utf8'));
}

interface Scenario {
  readonly seam: string;
  /** What the crash must have left, checked before any repair. */
  readonly left: (board: RecordingBoard) => void;
  readonly zombie?: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    // The round's claims run side by side: whichever card was moved second is in in-progress/ unstamped.
    seam: 'claim:moved:2',
    left: (b) => expect(inProgressTexts(b).filter((text) => !text.includes('claimed:')).length).toBeGreaterThan(0),
  },
  {
    seam: 'claim:stamped:1',
    left: (b) => expect(inProgressTexts(b).filter((text) => text.includes('claimed:')).length).toBeGreaterThan(0),
  },
  {
    seam: 'write:temp:2',
    left: (b) => expect(fs.readdirSync(path.join(b.vault, 'KANBAN/in-progress')).some((n) => n.endsWith('.tmp'))).toBe(true),
  },
  // The zombie's return edits it in in-progress/ first (attempt counted, claim cleared), then moves it.
  {
    seam: 'return:edited:1',
    zombie: true,
    left: (b) => {
      const data = parseFrontMatter(fs.readFileSync(path.join(b.vault, 'KANBAN/in-progress/zombie.md'), 'utf8')).data;
      expect(data).toMatchObject({ attempts: 0 });
      expect(data.claimed).toBeUndefined();
      expect(fs.existsSync(path.join(b.vault, 'KANBAN/pending/zombie.md'))).toBe(false);
    },
  },
];

describe('crash consistency', () => {
  it.concurrent.each(SCENARIOS)('killed at $seam: the vault stays whole and the next ticks repair it', async ({ seam, left, zombie }) => {
    const board = recordingBoard(6, { max_dispatches_per_round: '4', zombie_after: '5s' }, zombie ? { 'KANBAN/in-progress/zombie.md': ZOMBIE } : {});
    const names = [...Array.from({ length: 6 }, (_, i) => cardName(i)), ...(zombie ? ['zombie.md'] : [])];

    const crashed = await runCli(board.root, ['tick'], { BOARD_CRASH_AT: seam });
    expect(crashed.signal).toBe('SIGKILL');
    expect(invariantProblems(board.vault, names, true)).toEqual([]);
    left(board);

    const outputs = await drain(board, names);
    expect(outputs[0]!.stderr).toContain('took over the round lock of a dead process');
    expect(invariantProblems(board.vault, names)).toEqual([]);
    expectEachStartedOnce(board, names.filter((n) => n !== 'zombie.md' || !zombie).concat(zombie ? ['zombie.md'] : []));
  }, 90_000);

  it('random kill -9 of ticks in a loop: nothing lost, nothing doubled, each card started once', async () => {
    const COUNT = 30;
    const board = recordingBoard(COUNT, { max_dispatches_per_round: '10', zombie_after: '5s' });
    const names = Array.from({ length: COUNT }, (_, i) => cardName(i));
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < 6; k += 1) {
      const { startCli } = await import('./harness.js');
      const tick = startCli(board.root, ['tick']);
      // Let it get past start-up some of the time (start-up alone takes a good part of a second).
      await sleep(300 + Math.floor(random() * 1500));
      tick.child.kill('SIGKILL');
      await tick.exited;
      expect(invariantProblems(board.vault, names, true)).toEqual([]);
    }
    await drain(board, names, 60_000);
    expect(invariantProblems(board.vault, names)).toEqual([]);
    expectEachStartedOnce(board, names);
  }, 120_000);

  it('a settled double link is repaired in one tick; a fresh one is left to its mover', async () => {
    const board = recordingBoard(2, { max_dispatches_per_round: '4' });
    const pending = path.join(board.vault, 'KANBAN/pending', cardName(0));
    const inProgress = path.join(board.vault, 'KANBAN/in-progress', cardName(0));
    fs.linkSync(pending, inProgress);
    const env = { cwd: board.root, env: {}, stdout: () => undefined, logger: silentLogger(), clock: () => new Date() };

    // Fresh: a live mover may be about to unlink; the board leaves both names alone.
    const fresh = new FakeSpawner();
    expect(await tickCommand({ json: true }, env, fresh)).toBe(0);
    expect(fresh.jobs.map((j) => path.basename(j.card))).toEqual([cardName(1)]);
    expect(fs.statSync(pending).ino).toBe(fs.statSync(inProgress).ino);

    // Settled (seen seconds later): the pending/ name is dropped, the torn claim goes back, once.
    const later = Date.now() + 10_000;
    vi.spyOn(Date, 'now').mockImplementation(() => later);
    try {
      const settled = new FakeSpawner();
      expect(await tickCommand({ json: true }, env, settled)).toBe(0);
      expect(fs.existsSync(inProgress)).toBe(false);
      expect(fs.readFileSync(pending, 'utf8')).toContain('torn claim');
      expect(settled.jobs).toEqual([]);
      const next = new FakeSpawner();
      await tickCommand({ json: true }, env, next);
      expect(next.jobs.map((j) => path.basename(j.card))).toEqual([cardName(0)]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

const CLAIMED = `---
function: write
request: "Write a draft about kanban"
created: 2026-11-01T08:00:00.000Z
origin: human
attempts: 1
paths: []
agent: writer
claimed: 2026-11-01T08:30:00.000Z
model: none
---
Claimed.
`;

describe('verbs killed in the middle of a change', () => {
  it('a close killed between its edit and its move leaves its intent; the next tick finishes it into done/', async () => {
    const board = recordingBoard(0, {}, { 'KANBAN/in-progress/x.md': CLAIMED, 'notes/out.md': 'the draft\n' });
    const crashed = await runCli(board.root, ['card', 'close', 'x.md', '--path', 'notes/out.md'], { BOARD_CRASH_AT: 'close:edited:1' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(invariantProblems(board.vault, ['x.md'])).toEqual([]);
    expect(parseFrontMatter(fs.readFileSync(path.join(board.vault, 'KANBAN/in-progress/x.md'), 'utf8')).data).toMatchObject({ paths: ['notes/out.md'] });

    const next = await runCli(board.root, ['tick', '--json']);
    expect(next.code).toBe(0);
    expect(cardsByState(board.vault).done).toEqual(['x.md']);
    const text = fs.readFileSync(path.join(board.vault, 'KANBAN/done/x.md'), 'utf8');
    expect(parseFrontMatter(text).data).toMatchObject({ attempts: 1, paths: ['notes/out.md'] });
    expect(text).toContain('moved to done/ (the close had been written, the move had not)');
  }, 30_000);

  it('a fail killed between its edit and its move: the next tick returns it with the failure counted exactly once', async () => {
    const board = recordingBoard(0, { max_attempts: '5' }, { 'KANBAN/in-progress/x.md': CLAIMED });
    const crashed = await runCli(board.root, ['card', 'fail', 'x.md', 'the source was empty'], { BOARD_CRASH_AT: 'return:edited:1' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(invariantProblems(board.vault, ['x.md'])).toEqual([]);

    const next = await runCli(board.root, ['tick', '--json']);
    expect(next.code).toBe(0);
    const text = fs.readFileSync(path.join(board.vault, 'KANBAN/pending/x.md'), 'utf8');
    const data = parseFrontMatter(text).data;
    expect(data.attempts).toBe(2);
    expect(data.claimed).toBeUndefined();
    expect(data.agent).toBeUndefined();
    expect(text).toContain('failed: the source was empty');
    expect(text).toContain('torn claim');
    expect(cardsByState(board.vault)['in-progress']).toEqual([]);
  }, 30_000);
});

describe('random kill -9 of verbs', () => {
  it('closes and fails killed at random moments: every card whole, in one folder, its failure counted at most once, and the next ticks settle it', async () => {
    const COUNT = 12;
    const files: Record<string, string> = { 'notes/out.md': 'out\n' };
    const names = Array.from({ length: COUNT }, (_, i) => `v-${i}.md`);
    for (const n of names) files[`KANBAN/in-progress/${n}`] = CLAIMED;
    const board = recordingBoard(0, { max_attempts: '5', max_dispatches_per_round: '0' }, files);
    let seed = 777;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const { startCli } = await import('./harness.js');
    const verbs = names.map((n, i) => {
      const args = i % 2 === 0 ? ['card', 'close', n, '--path', 'notes/out.md'] : ['card', 'fail', n, 'it broke'];
      return startCli(board.root, args, { BOARD_CARD: path.join(board.vault, 'KANBAN/in-progress', n), BOARD_CLAIM: '2026-11-01T08:30:00.000Z' });
    });
    // Kill each at a random moment of its life: before start-up ends, mid-change, or after it finished.
    await Promise.all(
      verbs.map(async (v) => {
        await sleep(Math.floor(random() * 700));
        v.child.kill('SIGKILL');
        await v.exited;
      }),
    );
    expect(invariantProblems(board.vault, names)).toEqual([]);
    // The next ticks finish interrupted closes and return torn claims (their holders' locks are dead).
    for (let k = 0; k < 3; k += 1) await runCli(board.root, ['tick']);
    expect(invariantProblems(board.vault, names)).toEqual([]);
    for (const n of names) {
      const by = cardsByState(board.vault);
      const folder = (['pending', 'in-progress', 'done'] as const).find((s) => by[s].includes(n))!;
      const data = parseFrontMatter(fs.readFileSync(path.join(board.vault, 'KANBAN', folder, n), 'utf8')).data;
      expect([1, 2], `${n} attempts`).toContain(data.attempts);
      if (folder === 'done') expect(data).toMatchObject({ paths: ['notes/out.md'], attempts: 1 });
      if (folder === 'pending') {
        expect(data.closed, `${n} back in pending/ carrying closed`).toBeUndefined();
        expect(data.claimed).toBeUndefined();
      }
      // A claim still in in-progress/ is one no verb finished: unchanged.
      if (folder === 'in-progress') expect(data).toMatchObject({ attempts: 1, claimed: '2026-11-01T08:30:00.000Z' });
    }
  }, 60_000);
});
