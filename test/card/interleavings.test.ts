import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archiveCards } from '../../src/card/archive.js';
import { cancelCard } from '../../src/card/cancel.js';
import { closeCard } from '../../src/card/close.js';
import { failCard } from '../../src/card/fail.js';
import { noteCard } from '../../src/card/note.js';
import { unblockCard } from '../../src/card/unblock.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { tickCommand } from '../../src/commands/tick.js';
import { BoardError } from '../../src/errors.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { silentLogger } from '../../src/log.js';
import { cardSchema } from '../../src/schema/card.js';
import { FakeSpawner, card, makeBoard, profile } from '../helpers/vault.js';
import { where } from './fixtures.js';
import { VaultLayout } from '../../src/vault/layout.js';

/**
 * Random interleavings of verbs and rounds, run concurrently in one process (each change takes
 * its card's lock like any other process would). After every batch: every card is in exactly one
 * folder and parses; a card that reached done/ is never claimed again; attempts never go down
 * except by an unblock of exhausted attempts; a done card has `closed` and the close's paths.
 */

const NAMES = ['a.md', 'b.md', 'c.md'] as const;

const pending = (i: number) =>
  card(`function: write\nrequest: "Write a draft about topic ${i}"\ncreated: 2026-11-01T08:0${i}:00.000Z\norigin: human\nattempts: 0\npaths: []`, '\nBody.\n');

const op = fc.oneof(
  fc.record({ verb: fc.constant('tick' as const), advanceMs: fc.constantFrom(0, 61_000, 3_600_000) }),
  fc.record({ verb: fc.constant('close' as const), card: fc.constantFrom(...NAMES), stale: fc.boolean() }),
  fc.record({ verb: fc.constant('fail' as const), card: fc.constantFrom(...NAMES), stale: fc.boolean() }),
  fc.record({ verb: fc.constant('note' as const), card: fc.constantFrom(...NAMES), stale: fc.boolean() }),
  fc.record({ verb: fc.constant('cancel' as const), card: fc.constantFrom(...NAMES) }),
  fc.record({ verb: fc.constant('unblock' as const), card: fc.constantFrom(...NAMES) }),
  fc.record({ verb: fc.constant('archive' as const) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

describe('random interleavings of verbs and rounds', () => {
  it('keep every card in one folder, parseable, never claimed after done/, attempts never lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 7 }), async (batches: Op[][]) => {
        const root = makeBoard(
          {
            'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [draft]\nskills: [write]'),
            ...Object.fromEntries(NAMES.map((n, i) => [`KANBAN/pending/${n}`, pending(i)])),
            'notes/out.md': 'out\n',
          },
          { 'board.yml': 'vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: fake\nlogs: logs\nzombie_after: 1m\nmax_attempts: 3\n' },
        );
        const layout = new VaultLayout(path.join(root, 'vault'));
        let clock = new Date('2026-12-02T10:00:00.000Z').getTime();
        const everDone = new Set<string>();
        const attempts = new Map<string, number>(NAMES.map((n) => [n, 0]));
        const spawner = new FakeSpawner();
        const claimedAfterDone: string[] = [];

        /** The claim a worker of `name` holds: the card's current one, or a stale one. */
        const workerEnv = (name: string, stale: boolean) => {
          const file = path.join(layout.inProgress, name);
          let claim = 'stale-claim';
          if (!stale && fs.existsSync(file)) claim = String(parseFrontMatter(fs.readFileSync(file, 'utf8')).data.claimed ?? 'none');
          return { BOARD_CARD: file, BOARD_CLAIM: claim, BOARD_VAULT: layout.root };
        };
        const ctxOf = (env: Record<string, string>) => ({ layout, now: new Date(clock), maxAttempts: 3, env, cwd: layout.root });

        const run = async (o: Op): Promise<string> => {
          if (o.verb === 'tick') {
            clock += o.advanceMs;
            const out: string[] = [];
            const env: CommandEnv = { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(clock) };
            const before = spawner.jobs.length;
            await tickCommand({ json: true }, env, spawner);
            for (const job of spawner.jobs.slice(before)) if (everDone.has(path.basename(job.card))) claimedAfterDone.push(path.basename(job.card));
            return 'tick';
          }
          if (o.verb === 'close') return (await closeCard(ctxOf(workerEnv(o.card, o.stale)), o.card, { paths: ['notes/out.md'] })).verb;
          if (o.verb === 'fail') return (await failCard(ctxOf(workerEnv(o.card, o.stale)), o.card, 'it failed')).verb;
          if (o.verb === 'note') return (await noteCard(ctxOf(workerEnv(o.card, o.stale)), o.card, 'progress')).verb;
          if (o.verb === 'cancel') return (await cancelCard(ctxOf({}), o.card, 'stop it')).verb;
          if (o.verb === 'unblock') return (await unblockCard(ctxOf({}), o.card)).verb;
          await archiveCards(layout, new Date(clock + 30 * 86_400_000), 0);
          return 'archive';
        };

        for (const batch of batches) {
          const results = await Promise.allSettled(batch.map(run));
          for (const r of results) if (r.status === 'rejected' && !(r.reason instanceof BoardError)) throw r.reason;
          const unblocked = batch.some((o, i) => o.verb === 'unblock' && results[i]!.status === 'fulfilled');

          const found = where(layout);
          for (const name of NAMES) {
            const folders = found.get(name) ?? [];
            expect(folders, `${name} in ${folders.join(' and ') || 'no folder'} after ${JSON.stringify(batch)}`).toHaveLength(1);
            const folder = folders[0]!;
            const data = parseFrontMatter(fs.readFileSync(path.join(layout.kanban, folder, name), 'utf8')).data;
            expect(cardSchema.safeParse(data).success, `${name} unparseable`).toBe(true);
            if (everDone.has(name)) expect(folder === 'done' || folder.startsWith('archive/'), `${name} left done/ for ${folder}`).toBe(true);
            if (folder === 'done') {
              everDone.add(name);
              expect(data.closed).toBeTypeOf('string');
              expect(data.paths).toEqual(['notes/out.md']);
            }
            const n = data.attempts as number;
            if (!unblocked) expect(n, `${name}.attempts went down`).toBeGreaterThanOrEqual(attempts.get(name)!);
            attempts.set(name, n);
          }
        }
        expect(claimedAfterDone).toEqual([]);
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
