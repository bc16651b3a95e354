import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardName, cardsByState, claimMilestones, invariantProblems, journalEvents, recorded, recordingBoard, startCli, tally, } from './harness.js';

/**
 * Many dispatchers, one board: eight `board watch` processes (each a loop of rounds under the
 * round lock) and a stream of `board tick`s on one vault of 240 cards, with real supervisors and
 * a worker that closes its card. At the end every card is in done/ exactly once, and the
 * worker's recording, the cards' Records, the run records and the journal agree: one claim each.
 */
const DISPATCHERS = 8;
const CARDS = 160;

describe('many dispatchers on one board', () => {
  it(`${DISPATCHERS} watchers and concurrent ticks claim each of ${CARDS} cards exactly once`, async () => {
    const board = recordingBoard(CARDS, { max_dispatches_per_round: '12' });
    const names = Array.from({ length: CARDS }, (_, i) => cardName(i));
    const watchers = Array.from({ length: DISPATCHERS }, () => startCli(board.root, ['watch', '--interval', '1s', '--debounce', '20ms']));
    const ticks: Promise<unknown>[] = [];
    try {
      // Ticks started in bursts while the watchers run: they overlap with each other and with watch rounds.
      const burst = async () => {
        for (let i = 0; i < 3; i += 1) {
          ticks.push(...Array.from({ length: 3 }, () => import('./harness.js').then(({ runCli }) => runCli(board.root, ['tick']))));
          await new Promise((r) => setTimeout(r, 1500));
        }
      };
      await burst();
      // Bounded by progress, not by a fixed time: fail when nothing moves for 30 s.
      let last = -1;
      let lastChange = Date.now();
      for (;;) {
        const by = cardsByState(board.vault);
        if (by.done.length === CARDS) break;
        if (by.done.length !== last) [last, lastChange] = [by.done.length, Date.now()];
        if (Date.now() - lastChange > 30_000) {
          const lock = path.join(board.vault, 'KANBAN/.board.lock/owner.json');
          const owner = fs.existsSync(lock) ? fs.readFileSync(lock, 'utf8') : 'none';
          throw new Error(`stalled: ${by.pending.length} pending, ${by['in-progress'].length} in progress, ${by.done.length} done; lock owner ${owner}; lock dir ${fs.existsSync(path.join(board.vault, 'KANBAN/.board.lock'))}\n${watchers.map((w) => w.output.stderr.split('\n').slice(-4).join('\n')).join('\n--\n')}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      for (const w of watchers) w.child.kill('SIGTERM');
      await Promise.all(watchers.map((w) => w.exited));
      await Promise.all(ticks);
    }
    expect(watchers.flatMap((w) => w.output.stderr.split('\n').filter((l) => /"level":(50|60)/.test(l)))).toEqual([]);

    expect(invariantProblems(board.vault, names)).toEqual([]);
    expect(fs.readdirSync(path.join(board.vault, 'KANBAN/pending')).filter((n) => n.endsWith('.md'))).toEqual([]);
    expect(fs.readdirSync(path.join(board.vault, 'KANBAN/in-progress')).filter((n) => n.endsWith('.md'))).toEqual([]);

    // The worker's own recording: each card started exactly once, each with its own run.
    const starts = recorded(board.recordFile);
    const perCard = tally(starts.map((s) => s.card));
    expect([...perCard.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(perCard.size).toBe(CARDS);
    expect(new Set(starts.map((s) => s.run)).size).toBe(CARDS);

    // The cards' Records: one claim milestone each.
    for (const n of names) expect(claimMilestones(fs.readFileSync(path.join(board.vault, 'KANBAN/done', n), 'utf8')), n).toBe(1);

    // The run records on the board: one per card, each started once.
    const runs = fs.readdirSync(path.join(board.vault, 'KANBAN/.runs')).filter((f) => f.endsWith('.json'));
    expect(runs.length).toBe(CARDS);

    // The journal, when the tick journals claims: one card:claimed per card, matching the recording's runs.
    const claims = journalEvents(path.join(board.root, 'logs')).filter((e) => e.kind === 'card:claimed');
    if (claims.length > 0) {
      expect([...tally(claims.map((e) => e.card!)).entries()].filter(([, n]) => n !== 1)).toEqual([]);
      expect(new Set(claims.map((e) => e.run))).toEqual(new Set(starts.map((s) => s.run)));
    }

    // No temp file left behind by any writer.
    for (const s of ['pending', 'in-progress', 'done']) expect(fs.readdirSync(path.join(board.vault, 'KANBAN', s)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 240_000);
});
