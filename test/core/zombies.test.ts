import { describe, expect, it } from 'vitest';
import { findZombie, runIdFor, sameFailure, type ZombieSettings } from '../../src/core/zombies.js';
import { cardSchema, type Card } from '../../src/schema/card.js';
import type { RunFact } from '../../src/core/types.js';

const MIN = 60_000;
const settings: ZombieSettings = { zombieAfterMs: 120 * MIN, startGraceMs: 5 * MIN, maxAttempts: 3, leaseStaleAfterMs: MIN };
const CLAIMED = '2026-08-20T10:00:00Z';
const claimedAt = Date.parse(CLAIMED);
const after = (minutes: number) => new Date(claimedAt + minutes * MIN);
const STAMP = '2026-08-20 12:30';
const FILE = 'write-post.md';

const card = (over: Record<string, unknown> = {}): Card =>
  cardSchema.parse({
    function: 'write',
    request: 'a post',
    created: '2026-08-19',
    origin: 'human',
    agent: 'writer',
    claimed: CLAIMED,
    ...over,
  });

describe('runIdFor', () => {
  it.each([
    ['write-post.md', '2026-08-20T10:00:00Z', 0, 'write-post.20260820T100000Z.a0'],
    ['write-post.md', '2026-08-20T10:00:00.123+02:00', 2, 'write-post.20260820T1000001230200.a2'],
    ['a.b.md', '2026-08-20 10:00', 1, 'a.b.202608201000.a1'],
    ['no-extension', 'x', 0, 'no-extension.x.a0'],
  ])('runIdFor(%j, %j, %i) = %j', (file, claimed, attempts, expected) => {
    expect(runIdFor(file, claimed, attempts)).toBe(expected);
  });
});

describe('findZombie', () => {
  const started: RunFact = { state: 'started', pid: 42, alive: true };
  const runId = 'write-post.20260820T100000Z.a0';

  it.each<[string, Record<string, unknown>, RunFact | undefined, number, ReturnType<typeof findZombie>]>([
    ['torn: no claimed', { claimed: undefined }, undefined, 0, { card: FILE, kind: 'torn', reason: 'torn claim: in in-progress/ without `claimed`', attempts: 0 }],
    ['torn: empty claimed keeps attempts', { claimed: '', attempts: 2 }, undefined, 0, { card: FILE, kind: 'torn', reason: 'torn claim: in in-progress/ without `claimed`', attempts: 2 }],
    ['torn: null claimed', { claimed: null }, started, 999, { card: FILE, kind: 'torn', reason: 'torn claim: in in-progress/ without `claimed`', attempts: 0 }],
    ['torn: claimed not a timestamp', { claimed: 'yesterday' }, undefined, 0, { card: FILE, kind: 'torn', reason: 'torn claim: `claimed` "yesterday" is not a timestamp', attempts: 0 }],
    ['fresh claim, no run yet, within grace', {}, undefined, 4, undefined],
    ['never started: no run after the grace', {}, undefined, 5, { card: FILE, kind: 'never-started', reason: 'claimed 5m ago but its worker never started', attempts: 0, claim: CLAIMED, runId }],
    ['never started keeps attempts even past zombie_after', { attempts: 2 }, undefined, 600, { card: FILE, kind: 'never-started', reason: 'claimed 10h ago but its worker never started', attempts: 2, claim: CLAIMED, runId: 'write-post.20260820T100000Z.a2' }],
    ['abandoned run: at once, no attempt', {}, { state: 'abandoned' }, 0, { card: FILE, kind: 'never-started', reason: 'claimed 0s ago but its worker never started', attempts: 0, claim: CLAIMED, runId }],
    ['running, young', {}, started, 60, undefined],
    ['running, exactly zombie_after: not yet', {}, started, 120, undefined],
    ['running on another host (alive unknown), young', {}, { state: 'started' }, 119, undefined],
    ['expired: attempts + 1', {}, started, 121, { card: FILE, kind: 'expired', reason: 'zombie: claimed by writer 2h1m ago (zombie_after 2h)', attempts: 1, claim: CLAIMED, runId }],
    ['expired, alive unknown', { attempts: 1 }, { state: 'started' }, 180, { card: FILE, kind: 'expired', reason: 'zombie: claimed by writer 3h ago (zombie_after 2h)', attempts: 2, claim: CLAIMED, runId: 'write-post.20260820T100000Z.a1' }],
    ['expired, no agent', { agent: undefined }, started, 3000, { card: FILE, kind: 'expired', reason: 'zombie: claimed by unknown 2d ago (zombie_after 2h)', attempts: 1, claim: CLAIMED, runId }],
    [
      'expired at max_attempts: blocked',
      { attempts: 2 },
      started,
      150,
      {
        card: FILE,
        kind: 'expired',
        reason: 'zombie: claimed by writer 2h30m ago (zombie_after 2h)',
        attempts: 3,
        claim: CLAIMED,
        runId: 'write-post.20260820T100000Z.a2',
        block: `${STAMP} zombie: claimed by writer 2h30m ago (zombie_after 2h); attempts exhausted (3 of max_attempts 3)`,
      },
    ],
    ['dead worker: exited, at once', {}, { state: 'exited', exitCode: 1 }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker exited (exit code 1) without closing the card', attempts: 1, claim: CLAIMED, runId }],
    ['dead worker: exit code 0 still counts', {}, { state: 'exited', exitCode: 0 }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker exited (exit code 0) without closing the card', attempts: 1, claim: CLAIMED, runId }],
    ['dead worker: no exit code', {}, { state: 'exited', exitCode: null }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker exited (no exit code) without closing the card', attempts: 1, claim: CLAIMED, runId }],
    ['dead worker: supervisor gone', {}, { state: 'started', pid: 77, alive: false }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker supervisor (pid 77) is gone and the card is still claimed', attempts: 1, claim: CLAIMED, runId }],
    ['dead worker: supervisor gone, pid unknown', {}, { state: 'started', alive: false }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker supervisor (pid ?) is gone and the card is still claimed', attempts: 1, claim: CLAIMED, runId }],
    [
      'dead worker at max_attempts: blocked',
      { attempts: 2 },
      { state: 'exited', exitCode: 3 },
      1,
      {
        card: FILE,
        kind: 'dead-worker',
        reason: 'worker exited (exit code 3) without closing the card',
        attempts: 3,
        claim: CLAIMED,
        runId: 'write-post.20260820T100000Z.a2',
        block: `${STAMP} worker exited (exit code 3) without closing the card; attempts exhausted (3 of max_attempts 3)`,
      },
    ],
    // Leases: judged from any host, where a pid cannot be.
    [
      'lease stale on another host: reclaimed at once, attempt + 1',
      {},
      { state: 'started', pid: 4242, host: 'host-b', leaseAgeMs: 61_000 },
      3,
      {
        card: FILE,
        kind: 'dead-worker',
        reason: 'lease went stale: its supervisor on host-b (pid 4242) has not refreshed it for 61 s (lease_stale_after 60 s); its host is gone or cut off from the board',
        attempts: 1,
        claim: CLAIMED,
        runId,
      },
    ],
    ['lease exactly lease_stale_after old: not yet', {}, { state: 'started', pid: 4242, host: 'host-b', leaseAgeMs: 60_000 }, 3, undefined],
    ['lease fresh on another host: a live worker, young', {}, { state: 'started', pid: 4242, host: 'host-b', leaseAgeMs: 9_000 }, 100, undefined],
    ['lease fresh but past zombie_after: zombie_after stays the cap', {}, { state: 'started', pid: 4242, host: 'host-b', leaseAgeMs: 9_000 }, 121, { card: FILE, kind: 'expired', reason: 'zombie: claimed by writer 2h1m ago (zombie_after 2h)', attempts: 1, claim: CLAIMED, runId }],
    ['lease stale on this host, supervisor alive (frozen): reclaimed', {}, { state: 'started', pid: 42, alive: true, host: 'here', leaseAgeMs: 300_000 }, 10, { card: FILE, kind: 'dead-worker', reason: 'lease went stale: its supervisor on here (pid 42) has not refreshed it for 300 s (lease_stale_after 60 s); its host is gone or cut off from the board', attempts: 1, claim: CLAIMED, runId }],
    ['supervisor gone on this host: said so, whatever the lease', {}, { state: 'started', pid: 77, alive: false, leaseAgeMs: 300_000 }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker supervisor (pid 77) is gone and the card is still claimed', attempts: 1, claim: CLAIMED, runId }],
    ['exited run: its exit, not its lease', {}, { state: 'exited', exitCode: 2, leaseAgeMs: 300_000 }, 1, { card: FILE, kind: 'dead-worker', reason: 'worker exited (exit code 2) without closing the card', attempts: 1, claim: CLAIMED, runId }],
    ['no lease (a supervisor from before leases): zombie_after only', {}, { state: 'started', pid: 4242, host: 'host-b' }, 119, undefined],
    [
      'lease stale at max_attempts: blocked',
      { attempts: 2 },
      { state: 'started', host: 'host-b', leaseAgeMs: 90_000 },
      3,
      {
        card: FILE,
        kind: 'dead-worker',
        reason: 'lease went stale: its supervisor on host-b (pid ?) has not refreshed it for 90 s (lease_stale_after 60 s); its host is gone or cut off from the board',
        attempts: 3,
        claim: CLAIMED,
        runId: 'write-post.20260820T100000Z.a2',
        block: `${STAMP} lease went stale: its supervisor on host-b (pid ?) has not refreshed it for 90 s (lease_stale_after 60 s); its host is gone or cut off from the board; attempts exhausted (3 of max_attempts 3)`,
      },
    ],
    ['a blocked card is never a zombie', { blocked: '2026-08-20 x' }, { state: 'exited', exitCode: 1 }, 9999, undefined],
  ])('%s', (_label, over, run, minutes, expected) => {
    expect(findZombie(FILE, card(over), run, after(minutes), settings, STAMP)).toEqual(expected);
  });

  it('a claim in local time (no offset) is aged from local time', () => {
    // TZ=UTC: "2026-08-20 10:00" is 10:00Z.
    const z = findZombie(FILE, card({ claimed: '2026-08-20 10:00' }), { state: 'started', alive: true }, after(121), settings, STAMP);
    expect(z?.kind).toBe('expired');
    expect(z?.claim).toBe('2026-08-20 10:00');
  });

  it('honours an offset in claimed', () => {
    // 12:00+02:00 is 10:00Z: 121 minutes later is past zombie_after.
    const z = findZombie(FILE, card({ claimed: '2026-08-20T12:00:00+02:00' }), { state: 'started', alive: true }, after(121), settings, STAMP);
    expect(z?.kind).toBe('expired');
    expect(findZombie(FILE, card({ claimed: '2026-08-20T12:00:00+02:00' }), { state: 'started', alive: true }, after(119), settings, STAMP)).toBeUndefined();
  });

  const LOG = '/logs/runs/write-post.20260820T100000Z.a0.log';
  const crashed: RunFact = { state: 'exited', exitCode: 1, ended: 'exited', reason: 'ValueError: boom', log: LOG };

  it('a failure gives its reason and its log on the Record line', () => {
    const z = findZombie(FILE, card(), crashed, after(1), settings, STAMP);
    expect(z).toEqual({ card: FILE, kind: 'dead-worker', reason: `worker exited (exit code 1) without closing the card: ValueError: boom (log: ${LOG})`, attempts: 1, claim: CLAIMED, runId });
  });

  it('a timed-out worker gives its reason too, its budget under a minute in seconds', () => {
    const z = findZombie(FILE, card(), { state: 'exited', exitCode: null, stopped: 'timed-out', timeoutMs: 45_000, reason: 'still thinking', log: LOG }, after(1), settings, STAMP);
    expect(z?.reason).toBe(`worker timed out after 45s (the harness's timeout) and was stopped without closing the card: still thinking (log: ${LOG})`);
  });

  it('the same failure twice in a row blocks the card with that reason, attempts left or not', () => {
    const z = findZombie(FILE, card({ attempts: 1 }), crashed, after(1), settings, STAMP, { previousFailure: { ...crashed, log: '/logs/runs/earlier.log' } });
    const same = `the same failure twice in a row: ValueError: boom (log: ${LOG})`;
    expect(z).toMatchObject({ kind: 'dead-worker', attempts: 2, block: `${STAMP} ${same}`, repeated: same });
  });

  it.each<[string, RunFact]>([
    ['another reason', { ...crashed, reason: 'KeyError: x' }],
    ['another exit code', { ...crashed, exitCode: 2 }],
    ['a stop instead of an exit', { ...crashed, stopped: 'timed-out' }],
    ['no reason kept', { state: 'exited', exitCode: 1 }],
  ])('a different failure before (%s) spends an attempt as before', (_label, previous) => {
    const z = findZombie(FILE, card({ attempts: 1 }), crashed, after(1), settings, STAMP, { previousFailure: previous });
    expect(z).toMatchObject({ kind: 'dead-worker', attempts: 2 });
    expect(z?.block).toBeUndefined();
  });

  it('sameFailure needs a reason on both sides', () => {
    expect(sameFailure({ state: 'exited', exitCode: 1 }, { state: 'exited', exitCode: 1 })).toBe(false);
    expect(sameFailure(crashed, { ...crashed, log: 'elsewhere' })).toBe(true);
  });

  it('a run its worker closed is no zombie, even when the card read is older than its record', () => {
    // The census read the card in in-progress/; by the time it read the run record the worker had
    // closed the card and exited: the round judges what is, not its old snapshot.
    expect(findZombie(FILE, card(), { state: 'exited', exitCode: 0, ended: 'closed' }, after(1), settings, STAMP)).toBeUndefined();
  });
});
