import fs from 'node:fs/promises';
import path from 'node:path';
import { localDate } from '../core/time.js';
import { previousPeriod } from '../core/schedule.js';
import type { Plan } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { materialize } from '../journal/event.js';
import { JournalIndex, JournalLookup, dayFilesOf, newEventId, noopJournal, openJournal, snapshotDayFiles, type Journal, type JournalEvent, type NewEvent } from '../journal/index.js';
import { scheduledTemplateSchema } from '../schema/card.js';
import { isCardFileName } from '../vault/layout.js';
import { readParsed } from '../vault/read-card.js';
import { VerdictStore, verdictChanges } from './verdict-store.js';
import type { RoundContext, Transition } from './context.js';

/** How far back a round looks in the journal for a card's latest event (the cause of its next one). */
export const INDEX_WINDOW_MS = 92 * 86_400_000;

const ACTOR = 'board';

/**
 * A round's view of the journal: appends each transition with its cause (the card's latest
 * journaled event, or for a director's wake the close of the child it waited for), journals census
 * verdicts only when they change (`<logs>/verdicts.json` remembers the last ones) and periods
 * that no tick ran in. One per round, shared by the steps through `roundJournalOf(ctx)`.
 *
 * Causes are found with bounded lookups (`JournalLookup`): newest day file first, stopping at
 * the first file that holds the card, over a snapshot of the journal taken once per round. The
 * events the round appends itself are kept here and are always the card's latest.
 */
export class RoundJournal {
  /** The events this round appended, in order. */
  private readonly appended: JournalEvent[] = [];
  private lookup: JournalLookup | undefined;
  /** A journal without a folder to search (not one `openJournal` made): read in full, as before. */
  private index: Promise<JournalIndex> | undefined;
  private broken = false;
  private reportedProblems = 0;
  /** Cards' latest events (any kind) found in one pass for a batch (see `prefetch`). */
  private readonly prefetched = new Map<string, JournalEvent | undefined>();

  constructor(
    readonly journal: Journal,
    private readonly ctx: RoundContext,
  ) {
    if (journal.enabled && journal.dir !== undefined) this.lookup = new JournalLookup(snapshotDayFiles(dayFilesOf(journal.dir)));
  }

  private get since(): Date {
    return new Date(this.ctx.now.getTime() - INDEX_WINDOW_MS);
  }

  /** Run a lookup; an unreadable journal leaves causes out for the rest of the round (warned once). */
  private async search<T>(fallback: T, run: (lookup: JournalLookup) => Promise<T>): Promise<T> {
    if (!this.lookup || this.broken) return fallback;
    try {
      return await run(this.lookup);
    } catch (error) {
      this.broken = true;
      this.ctx.logger.warn({ err: error }, 'journal unreadable: causes left out this round');
      return fallback;
    } finally {
      const problems = this.lookup.problems;
      for (; this.reportedProblems < problems.length; this.reportedProblems += 1) {
        const p = problems[this.reportedProblems]!;
        this.ctx.logger.warn({ file: p.file, line: p.line, torn: p.torn }, `journal: ${p.reason}`);
      }
    }
  }

  private loadIndex(): Promise<JournalIndex> {
    this.index ??= this.journal.enabled
      ? this.journal.read({ since: this.since }).then(
          (read) => {
            for (const p of read.problems) this.ctx.logger.warn({ file: p.file, line: p.line, torn: p.torn }, `journal: ${p.reason}`);
            return new JournalIndex(read.events);
          },
          (error: Error) => {
            this.ctx.logger.warn({ err: error }, 'journal unreadable: causes left out this round');
            return new JournalIndex();
          },
        )
      : Promise.resolve(new JournalIndex());
    return this.index;
  }

  async append(event: NewEvent): Promise<JournalEvent> {
    const stored = await this.journal.append({ at: this.ctx.now, ...event });
    this.appended.push(stored);
    return stored;
  }

  async lastFor(card: string, kinds?: readonly string[]): Promise<JournalEvent | undefined> {
    for (let i = this.appended.length - 1; i >= 0; i--) {
      const e = this.appended[i]!;
      if (e.card === card && (!kinds || kinds.includes(e.kind))) return e;
    }
    if (!this.journal.enabled) return undefined;
    if (!kinds && this.prefetched.has(card)) return this.prefetched.get(card);
    if (!this.lookup) return (await this.loadIndex()).lastFor(card, kinds);
    return this.search(undefined, (lookup) => lookup.latestFor(card, { since: this.since, kinds }));
  }

  /** Look up many cards' latest events in one pass over the journal, for the `lastFor`s to come. */
  private async prefetch(cards: Iterable<string>): Promise<void> {
    if (!this.journal.enabled || !this.lookup) return;
    const wanted = [...new Set(cards)].filter((c) => !this.prefetched.has(c));
    if (wanted.length < 2) return;
    const found = await this.search(undefined, (lookup) => lookup.latestForMany(wanted, { since: this.since }));
    for (const [card, event] of found ?? []) this.prefetched.set(card, event);
  }

  /**
   * The cause of a claim: for a card waiting on `dependent_task` (a director's wake), the close of
   * that child; otherwise the card's latest event (its creation, its yield, its reclaim …).
   */
  async claimCause(card: string, cardText: string): Promise<string | undefined> {
    let inputs: unknown;
    try {
      inputs = parseFrontMatter(cardText).data.inputs;
    } catch {
      inputs = undefined;
    }
    const dependent = inputs && typeof inputs === 'object' ? (inputs as Record<string, unknown>).dependent_task : undefined;
    for (const p of Array.isArray(dependent) ? dependent : [dependent]) {
      if (typeof p !== 'string') continue;
      const closed = await this.lastFor(path.posix.basename(p), ['card:closed']);
      if (closed) return closed.id;
    }
    return (await this.lastFor(card))?.id;
  }

  async tick(plan: Plan): Promise<void> {
    await this.append({
      kind: 'tick:ran',
      actor: ACTOR,
      detail: `plan: ${plan.scheduled.length} scheduled, ${plan.dispatch.length} to dispatch, ${plan.waiting.length} waiting, ${plan.blocked.length} blocked, ${plan.zombies.length} zombies`,
      data: { pid: process.pid },
    });
  }

  /** Journal the transitions a step did not journal itself (those carry `event`). */
  async transitions(transitions: readonly Transition[]): Promise<void> {
    for (const t of transitions) {
      if (t.event !== undefined) continue;
      const base = { actor: ACTOR, card: t.card, detail: t.detail, run: t.runId, profile: t.profile, pid: t.pid };
      switch (t.kind) {
        case 'scheduled':
          await this.append({ ...base, kind: 'schedule:written' });
          break;
        case 'claimed':
        case 'spawned':
        case 'blocked':
          await this.append({ ...base, kind: `card:${t.kind}`, cause: (await this.lastFor(t.card))?.id });
          break;
        case 'reclaimed':
        case 'returned': {
          const claim = (await this.lastFor(t.card, ['card:claimed'])) ?? (await this.lastFor(t.card));
          await this.append({ ...base, kind: `card:${t.kind}`, cause: claim?.id });
          break;
        }
        case 'closed': {
          // A close that crashed between its edit and its move, finished by the round.
          const last = await this.lastFor(t.card);
          if (last?.kind !== 'card:closed') await this.append({ ...base, kind: 'card:closed', cause: (await this.lastFor(t.card, ['card:claimed']))?.id ?? last?.id });
          break;
        }
        case 'failed':
          await this.append({ ...base, kind: 'round:failed', cause: (await this.lastFor(t.card))?.id });
          break;
        default:
          // A transition kind this journal does not know yet: the tick's own report still shows it.
          break;
      }
    }
  }

  /**
   * Waiting and blocked verdicts, journaled only when they differ from the last ones journaled.
   * With `only` (a partial round's cards), the plan speaks for those cards alone: every other
   * card keeps its last verdict.
   */
  async census(plan: Plan, only?: ReadonlySet<string>): Promise<void> {
    if (!this.journal.enabled) return;
    const store = new VerdictStore(this.ctx.board.config.logsDir);
    let previous: ReadonlyMap<string, string> = new Map();
    try {
      previous = await store.load();
    } catch {
      // Unreadable: every verdict counts as new.
    }
    const next = new Map<string, string>();
    // The verdicts to journal, in order; then their causes in one pass over the journal and their
    // lines in one append: a burst of new cards costs this round the journal's bytes once, not once a card.
    const verdicts: Verdict[] = [];
    for (const w of plan.waiting) {
      const verdict = `waiting: ${w.reason}`;
      next.set(w.card, verdict);
      if (previous.get(w.card) !== verdict) verdicts.push({ kind: 'census:waiting', card: w.card, reason: w.reason, before: previous.get(w.card) });
    }
    for (const b of plan.blocked) {
      // A block this round is journaled as card:blocked; a reworded `blocked:` value is not news.
      next.set(b.card, 'blocked');
      if (!b.new && previous.get(b.card) !== 'blocked') verdicts.push({ kind: 'census:blocked', card: b.card, reason: b.reason, before: previous.get(b.card) });
    }
    for (const d of plan.dispatch) {
      if (previous.get(d.card) === 'blocked') verdicts.push({ kind: 'card:unblocked', card: d.card, reason: '`blocked` was cleared (seen by the census)', before: 'blocked', actor: 'human' });
    }
    for (const w of plan.waiting) {
      if (previous.get(w.card) === 'blocked') verdicts.push({ kind: 'card:unblocked', card: w.card, reason: '`blocked` was cleared (seen by the census)', before: 'blocked', actor: 'human' });
    }
    // Computed before the journal lookups below: `apply` may then update `previous` in place.
    const changes = verdictChanges(previous, next, only);
    await this.prefetch(verdicts.map((v) => v.card));
    const events: NewEvent[] = [];
    for (const v of verdicts) {
      const last = await this.lastFor(v.card);
      // A `board card unblock` already said so.
      if (v.kind === 'card:unblocked' && last?.kind === 'card:unblocked') continue;
      const event: NewEvent = { id: newEventId(), at: this.ctx.now, kind: v.kind, actor: v.actor ?? ACTOR, card: v.card, cause: last?.id, detail: v.reason, ...(v.before !== undefined ? { data: { before: v.before } } : {}) };
      // Seen by the next verdict's lookup at once (a card unblocked and waiting: its cause is the wait).
      this.appended.push(materialize(event, () => this.ctx.now));
      events.push(event);
    }
    if (events.length > 0) await this.journal.appendMany(events);
    try {
      await store.apply(changes);
    } catch (error) {
      this.ctx.logger.warn({ err: error }, 'could not record the census verdicts: unchanged verdicts may be journaled again');
    }
  }

  /**
   * The contract's "nothing in silence" for step 0: each period of a template that got no
   * instance because no tick ran between its due moment and its end is journaled once as
   * `schedule:skipped`. Only decidable once the journal existed before that period was due.
   */
  async skippedPeriods(): Promise<void> {
    if (!this.journal.enabled) return;
    const { layout, now } = this.ctx;
    let names: string[];
    try {
      names = (await fs.readdir(layout.scheduled)).filter(isCardFileName).sort();
    } catch {
      return;
    }
    if (names.length === 0) return;
    // Both facts are looked up only when needed: on a board that ticks, the previous period holds a
    // tick (found from the end of its last day file) and the journal's start is never read.
    let earliest: string | null | undefined;
    const journalStart = async (): Promise<string | null> => {
      earliest ??= (await this.journalStart()) ?? null;
      return earliest;
    };
    for (const name of names) {
      const parsed = await readParsed(path.join(layout.scheduled, name), `scheduled/${name}`, scheduledTemplateSchema);
      if (!parsed.ok || !parsed.value.trigger.active) continue;
      // Walk back through the idle stretch: every period no tick ran in, back to the last one a
      // tick did run in (that tick already looked further back) or to the journal's start.
      for (let period = previousPeriod(parsed.value.trigger, now), walked = 0; walked < MAX_PERIODS_BACK; period = previousPeriod(parsed.value.trigger, period.start), walked += 1) {
        if (await this.tickBetween(period.due, period.end)) break;
        const start = await journalStart();
        // An empty journal: nothing is decidable yet.
        if (start === null) return;
        if (Date.parse(start) > period.due.getTime()) break;
        const instance = `${localDate(period.due)}-${name.replace(/\.md$/, '')}.md`;
        if (await this.lastFor(instance, ['schedule:skipped'])) continue;
        if (await existsInAnyState(this.ctx, instance)) continue;
        await this.append({
          kind: 'schedule:skipped',
          actor: ACTOR,
          card: instance,
          detail: `no tick ran between ${period.due.toISOString()} and ${period.end.toISOString()}: the ${parsed.value.trigger.every}'s instance of scheduled/${name} was never written (no catch-up)`,
          data: { template: `scheduled/${name}` },
        });
      }
    }
  }

  /** Whether a `tick:ran` of the journal (as the round found it) falls in [from, to). */
  private async tickBetween(from: Date, to: Date): Promise<boolean> {
    if (!this.lookup) {
      const index = await this.loadIndex();
      return [...index.byId.values()].some((e) => e.kind === 'tick:ran' && Date.parse(e.at) >= from.getTime() && Date.parse(e.at) < to.getTime());
    }
    return this.search(false, (lookup) => lookup.anyBetween('tick:ran', from, to, { since: this.since }));
  }

  /** The time of the journal's first event in the window, when it has one. */
  private async journalStart(): Promise<string | undefined> {
    if (!this.lookup) {
      const events = [...(await this.loadIndex()).byId.values()];
      return events.length === 0 ? undefined : events.reduce((min, e) => (e.at < min ? e.at : min), events[0]!.at);
    }
    return this.search(undefined, (lookup) => lookup.earliestAt({ since: this.since }));
  }
}

interface Verdict {
  readonly kind: 'census:waiting' | 'census:blocked' | 'card:unblocked';
  readonly card: string;
  readonly reason: string;
  readonly before: string | undefined;
  readonly actor?: string;
}

/** A bound on how far back one tick looks for skipped periods (over a year of days). */
const MAX_PERIODS_BACK = 400;

async function existsInAnyState(ctx: RoundContext, name: string): Promise<boolean> {
  const { layout } = ctx;
  const dirs = [layout.pending, layout.inProgress, layout.done];
  try {
    for (const month of await fs.readdir(layout.archive)) dirs.push(path.join(layout.archive, month));
  } catch {
    // No archive yet.
  }
  for (const dir of dirs) {
    try {
      await fs.access(path.join(dir, name));
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

const perRound = new WeakMap<RoundContext, RoundJournal>();

/** The round's journal, created once per round context (the no-op one when the context has none). */
export function roundJournalOf(ctx: RoundContext): RoundJournal {
  let rj = perRound.get(ctx);
  if (!rj) {
    rj = new RoundJournal(ctx.journal ?? noopJournal(() => ctx.now), ctx);
    perRound.set(ctx, rj);
  }
  return rj;
}

/** A tick's journal: the file journal in the board's logs folder. */
export function tickJournal(ctx: Pick<RoundContext, 'board' | 'logger'>): Journal {
  return openJournal(ctx.board.config.logsDir, {
    onError: (error, event) => ctx.logger.error({ err: error, event: event.kind, card: event.card }, 'could not journal an event'),
  });
}
