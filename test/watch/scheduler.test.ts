import { describe, expect, it } from 'vitest';
import { RoundScheduler, type RoundOutcome, type RoundReason, type Timers } from '../../src/watch/scheduler.js';

/** A fake clock: timers fire only when the test advances time. */
class FakeClock implements Timers {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  set(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get timers(): number {
    return this.pending.size;
  }
  /** Advance time, firing due timers in order and letting the promises they start settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A round the test finishes by hand, to look inside "during a round". */
function harness(outcomes: RoundOutcome[] = []) {
  const clock = new FakeClock();
  const rounds: RoundReason[] = [];
  let finish: ((o: RoundOutcome) => void) | undefined;
  let manual = false;
  const scheduler = new RoundScheduler({
    debounceMs: 500,
    intervalMs: 60_000,
    retryMs: 1_000,
    timers: clock,
    run: (reason) => {
      rounds.push(reason);
      if (manual) return new Promise<RoundOutcome>((resolve) => (finish = resolve));
      return Promise.resolve(outcomes.shift() ?? 'ok');
    },
  });
  return {
    clock,
    rounds,
    scheduler,
    hold: () => (manual = true),
    release: async (o: RoundOutcome = 'ok') => {
      manual = false;
      finish!(o);
      await flush();
    },
  };
}

describe('RoundScheduler', () => {
  it('runs a round at start, then on the heartbeat', async () => {
    const h = harness();
    h.scheduler.start();
    await flush();
    expect(h.rounds).toEqual(['start']);
    await h.clock.advance(59_999);
    expect(h.rounds).toEqual(['start']);
    await h.clock.advance(1);
    expect(h.rounds).toEqual(['start', 'heartbeat']);
  });

  it('debounces a burst of changes into one round after the quiet time', async () => {
    const h = harness();
    h.scheduler.start();
    await flush();
    for (let i = 0; i < 5; i++) {
      h.scheduler.signal();
      await h.clock.advance(100);
    }
    expect(h.rounds).toEqual(['start']);
    await h.clock.advance(400);
    expect(h.rounds).toEqual(['start', 'change']);
  });

  it('does not let a steady stream of changes starve the board (max wait)', async () => {
    const h = harness();
    h.scheduler.start();
    await flush();
    for (let i = 0; i < 60; i++) {
      h.scheduler.signal();
      await h.clock.advance(200);
    }
    expect(h.rounds.filter((r) => r === 'change').length).toBeGreaterThanOrEqual(2);
  });

  it('never runs two rounds at once; changes during a round schedule exactly one more', async () => {
    const h = harness();
    h.hold();
    h.scheduler.start();
    await flush();
    expect(h.scheduler.isRunning).toBe(true);
    for (let i = 0; i < 10; i++) h.scheduler.signal();
    await h.clock.advance(120_000); // heartbeat and debounce would both be due: neither starts a second round
    expect(h.rounds).toEqual(['start']);
    await h.release();
    await h.clock.advance(500);
    expect(h.rounds).toEqual(['start', 'change']);
    await h.clock.advance(5_000);
    expect(h.rounds).toEqual(['start', 'change']);
  });

  it('retries a failed round with a backoff capped by the interval, and skips the heartbeat meanwhile', async () => {
    const h = harness(['failed', 'failed', 'failed', 'ok']);
    h.scheduler.start();
    await flush();
    await h.clock.advance(999);
    expect(h.rounds).toEqual(['start']);
    await h.clock.advance(1); // 1s
    await h.clock.advance(2_000); // 2s
    await h.clock.advance(4_000); // 4s
    expect(h.rounds).toEqual(['start', 'retry', 'retry', 'retry']);
    await h.clock.advance(60_000);
    expect(h.rounds).toEqual(['start', 'retry', 'retry', 'retry', 'heartbeat']);
  });

  it('retries a round skipped because the lock was held', async () => {
    const h = harness(['skipped']);
    h.scheduler.start();
    await flush();
    await h.clock.advance(1_000);
    expect(h.rounds).toEqual(['start', 'retry']);
  });

  it('keeps bounded state: at most one timer of each kind, whatever happens', async () => {
    const h = harness();
    h.scheduler.start();
    await flush();
    for (let i = 0; i < 1_000; i++) {
      h.scheduler.signal();
      if (i % 7 === 0) await h.clock.advance(300);
      expect(h.clock.timers).toBeLessThanOrEqual(3);
    }
  });

  it('stop() waits for the round in flight and schedules nothing after it', async () => {
    const h = harness();
    h.hold();
    h.scheduler.start();
    await flush();
    let stopped = false;
    const stopping = h.scheduler.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    await h.release();
    await stopping;
    expect(stopped).toBe(true);
    h.scheduler.signal();
    await h.clock.advance(3_600_000);
    expect(h.rounds).toEqual(['start']);
    expect(h.clock.timers).toBe(0);
  });
});
