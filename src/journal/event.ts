import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * One journal event: a transition the dispatcher or a `board card` verb performed. Events are
 * `noun:verb` names; `cause` is the id of the event that led to this one (a child's creation
 * points at its director's claim, a director's wake at its child's close), so the journal is a
 * causal graph as well as a history.
 */

export const EVENT_KINDS = [
  // The heartbeat itself (its time proves a tick ran in a period).
  'tick:ran',
  // Step 0.
  'schedule:written',
  'schedule:skipped',
  // Census verdicts, journaled only when they change.
  'census:waiting',
  'census:blocked',
  // A card's life.
  'card:created',
  'card:claimed',
  'card:spawned',
  'card:noted',
  'card:reclaimed',
  'card:returned',
  'card:blocked',
  'card:unblocked',
  'card:yielded',
  'card:rewired',
  'card:failed',
  'card:closed',
  'card:archived',
  'card:cancelled',
  // Runs.
  'run:exited',
  'run:replayed',
  // Something the round tried and could not do.
  'round:failed',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const journalEventSchema = z.object({
  id: z.string().min(1),
  at: z.string().min(1),
  /** Open on purpose: a newer board may journal kinds an older reader does not know. */
  kind: z.string().min(1),
  actor: z.string().min(1),
  card: z.string().optional(),
  cause: z.string().optional(),
  run: z.string().optional(),
  profile: z.string().optional(),
  pid: z.number().int().optional(),
  detail: z.string().optional(),
  data: z.record(z.string(), scalar).optional(),
});

export type JournalEvent = z.infer<typeof journalEventSchema>;

/** What a caller hands `append`: the journal fills in `id` (unless given) and `at`. */
export interface NewEvent {
  readonly kind: EventKind;
  readonly actor: string;
  readonly card?: string | undefined;
  readonly cause?: string | undefined;
  readonly run?: string | undefined;
  readonly profile?: string | undefined;
  readonly pid?: number | undefined;
  readonly detail?: string | undefined;
  readonly data?: Readonly<Record<string, string | number | boolean | null | undefined>> | undefined;
  /** A pre-made id (see `newEventId`), when the id must be known before the event happens. */
  readonly id?: string | undefined;
  /** Defaults to the journal's clock. */
  readonly at?: Date | undefined;
}

/**
 * Event ids sort by time and are unique across processes and hosts: `ev-<ms base36>-<48 random
 * bits>`. The time part is the real clock, not `--now`, so ids stay unique in previews too.
 */
export function newEventId(): string {
  return `ev-${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

/**
 * Lines are written with one `write(2)` in O_APPEND mode; keeping each under PIPE_BUF (4096) keeps
 * them whole with any number of concurrent writers, on every filesystem that honours O_APPEND.
 */
export const MAX_LINE_BYTES = 4000;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 14))}… [${text.length - max + 14} cut]`;
}

/**
 * The event as one NDJSON line (with its newline), summarized until it fits MAX_LINE_BYTES:
 * first `detail` and `data` strings are shortened, then `data` is dropped, then `detail` is.
 * The fields that make the graph (`id`, `kind`, `card`, `cause`, `run`) are never touched.
 */
export function toLine(event: JournalEvent): string {
  const line = (e: JournalEvent) => `${JSON.stringify(e)}\n`;
  let text = line(event);
  if (bytes(text) <= MAX_LINE_BYTES) return text;
  for (const max of [1000, 300, 80]) {
    const data = event.data
      ? Object.fromEntries(Object.entries(event.data).map(([k, v]) => [cut(k, 60), typeof v === 'string' ? cut(v, max) : v]))
      : undefined;
    const shrunk: JournalEvent = { ...event, ...(event.detail !== undefined ? { detail: cut(event.detail, max) } : {}), ...(data ? { data } : {}) };
    text = line(shrunk);
    if (bytes(text) <= MAX_LINE_BYTES) return text;
  }
  const { data: _data, ...withoutData } = event;
  text = line({ ...withoutData, ...(event.detail !== undefined ? { detail: cut(event.detail, 200) } : {}), data: { truncated: true } });
  if (bytes(text) <= MAX_LINE_BYTES) return text;
  const { detail: _detail, ...bare } = withoutData;
  // Only absurdly long card names or ids get here; shorten what remains rather than tear a line.
  const last: JournalEvent = { ...bare, data: { truncated: true } };
  for (const key of ['card', 'run', 'profile', 'actor'] as const) if (typeof last[key] === 'string') (last as Record<string, unknown>)[key] = cut(last[key]!, 500);
  return line(last);
}

/** Build the stored event from a request: drops undefined fields so lines stay small and stable. */
export function materialize(input: NewEvent, clock: () => Date): JournalEvent {
  const data = input.data ? Object.fromEntries(Object.entries(input.data).filter(([, v]) => v !== undefined)) : undefined;
  const event: Record<string, unknown> = {
    id: input.id ?? newEventId(),
    at: (input.at ?? clock()).toISOString(),
    kind: input.kind,
    actor: input.actor,
  };
  for (const key of ['card', 'cause', 'run', 'profile', 'pid', 'detail'] as const) if (input[key] !== undefined) event[key] = input[key];
  if (data && Object.keys(data).length > 0) event.data = data;
  return event as JournalEvent;
}
