/**
 * When `board watch` runs a round: the pure-ish heart of the daemon, driven by an injected clock
 * so tests can step it. Signals (file changes) are debounced and coalesced; a heartbeat runs a
 * round when nothing has happened for an interval; a failed or skipped round is retried with a
 * capped backoff. Never two rounds at once: a signal during a round schedules exactly one more.
 * All state is a handful of scalars and timer handles: nothing grows across rounds.
 */

export type RoundOutcome = 'ok' | 'skipped' | 'failed';

/** The clock the scheduler runs on: real timers in production, a fake one in tests. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

export type RoundReason = 'start' | 'change' | 'heartbeat' | 'retry' | 'again';

export interface SchedulerOptions {
  /** Quiet time after the last change before a round runs. */
  readonly debounceMs: number;
  /** A round runs at the latest this long after the first of a burst of changes. */
  readonly maxWaitMs?: number;
  /** Heartbeat: a round this long after the previous one ended, changes or not. */
  readonly intervalMs: number;
  /** First retry delay after a failed or skipped round; doubles up to `intervalMs`. */
  readonly retryMs: number;
  readonly run: (reason: RoundReason) => Promise<RoundOutcome>;
  readonly timers?: Timers;
}

export class RoundScheduler {
  private readonly timers: Timers;
  private readonly maxWaitMs: number;
  private running = false;
  private again = false;
  private stopped = false;
  private burstStart: number | undefined;
  private debounceTimer: unknown;
  private heartbeatTimer: unknown;
  private retryTimer: unknown;
  private setbacks = 0;
  private current: Promise<void> | undefined;

  constructor(private readonly options: SchedulerOptions) {
    this.timers = options.timers ?? realTimers;
    this.maxWaitMs = options.maxWaitMs ?? Math.max(options.debounceMs * 10, options.debounceMs);
  }

  /** Run the first round now; the heartbeat and signals take over from there. */
  start(): void {
    this.fire('start');
  }

  /** A change worth a round happened. */
  signal(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const now = this.timers.now();
    this.burstStart ??= now;
    this.clear('debounceTimer');
    const wait = Math.max(0, Math.min(this.options.debounceMs, this.burstStart + this.maxWaitMs - now));
    this.debounceTimer = this.timers.set(() => {
      this.debounceTimer = undefined;
      this.fire('change');
    }, wait);
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Stop scheduling, and wait for the round in flight (if any) to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clear('debounceTimer');
    this.clear('heartbeatTimer');
    this.clear('retryTimer');
    await this.current;
  }

  private fire(reason: RoundReason): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.clear('debounceTimer');
    this.clear('heartbeatTimer');
    this.clear('retryTimer');
    this.burstStart = undefined;
    this.running = true;
    this.current = this.execute(reason);
  }

  private async execute(reason: RoundReason): Promise<void> {
    let outcome: RoundOutcome;
    try {
      outcome = await this.options.run(reason);
    } catch {
      outcome = 'failed';
    }
    this.running = false;
    this.current = undefined;
    if (this.stopped) return;
    if (outcome === 'ok') {
      this.setbacks = 0;
    } else {
      this.setbacks += 1;
      const delay = Math.min(this.options.retryMs * 2 ** Math.min(this.setbacks - 1, 20), this.options.intervalMs);
      this.retryTimer = this.timers.set(() => {
        this.retryTimer = undefined;
        this.fire('retry');
      }, delay);
    }
    if (this.again) {
      this.again = false;
      this.signal();
    }
    if (outcome !== 'failed') {
      this.heartbeatTimer = this.timers.set(() => {
        this.heartbeatTimer = undefined;
        this.fire('heartbeat');
      }, this.options.intervalMs);
    }
  }

  private clear(which: 'debounceTimer' | 'heartbeatTimer' | 'retryTimer'): void {
    if (this[which] !== undefined) this.timers.clear(this[which]);
    this[which] = undefined;
  }
}
