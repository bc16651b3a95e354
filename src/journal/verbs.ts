import fs from 'node:fs/promises';
import path from 'node:path';
import { parseFrontMatter } from '../format/frontmatter.js';
import type { EventKind, JournalEvent } from './event.js';
import { causeFromEnv, logsDirFromEnv } from './from-env.js';
import { JournalIndex } from './graph.js';
import { noopJournal, openJournal, type Journal } from './journal.js';
import { lookupOf } from './lookup.js';
import { findUpward } from '../config/load-config.js';

/** How far back a verb looks for the claim that names its worker's profile. */
const CLAIM_WINDOW_MS = 7 * 86_400_000;
/** How far back a human's verb looks for the card's latest event (its cause): the round's window. */
const CAUSE_WINDOW_MS = 92 * 86_400_000;

/**
 * Journaling for the `board card` verbs (and `unblock`, `archive`): one event per verb that
 * changed a card, caused by the worker's claim (BOARD_CAUSE) when a worker runs it, else by the
 * card's latest journaled event (a human's verb continues the card's chain instead of starting
 * a new one). A new card made by a human is a root.
 */

const KINDS: Readonly<Record<string, EventKind>> = {
  new: 'card:created',
  note: 'card:noted',
  close: 'card:closed',
  fail: 'card:failed',
  block: 'card:blocked',
  yield: 'card:yielded',
  rewire: 'card:rewired',
  unblock: 'card:unblocked',
  archive: 'card:archived',
  cancel: 'card:cancelled',
};

export interface VerbOutcome {
  readonly verb: string;
  /** The card's file name. */
  readonly card: string;
  /** The card's absolute path afterwards. */
  readonly file?: string;
  readonly message: string;
  /** What the verb was given that the card's chain should keep: a failure's `reason`, a note's `text`. */
  readonly data?: Readonly<Record<string, string>>;
}

export interface VerbJournalOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** `--config`, when the verb was given one. */
  readonly config?: string | undefined;
  readonly at: Date;
}

/** The journal a verb writes to: `--config`'s, else BOARD_CONFIG's (BOARD_LOGS), else the board.yml found from the cwd up, else none. */
export async function journalForVerb(options: VerbJournalOptions): Promise<Journal> {
  // The config a command would find: board.yml here or in the nearest parent (load-config.ts).
  const config = options.config
    ? path.resolve(options.cwd, options.config)
    : options.env.BOARD_CONFIG || options.env.BOARD_LOGS
      ? undefined
      : findUpward(options.cwd);
  const logsDir = await logsDirFromEnv(config ? { ...options.env, BOARD_LOGS: undefined, BOARD_CONFIG: config } : options.env);
  return logsDir ? openJournal(logsDir) : noopJournal();
}

async function agentOf(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    const agent = parseFrontMatter(await fs.readFile(file, 'utf8')).data.agent;
    return typeof agent === 'string' && agent !== '' ? agent : undefined;
  } catch {
    return undefined;
  }
}

/** Journal what a verb did. Never throws: a verb's work is never undone by its journal. */
export async function journalVerb(outcome: VerbOutcome, options: VerbJournalOptions, journal?: Journal): Promise<JournalEvent | undefined> {
  const kind = KINDS[outcome.verb];
  if (!kind) return undefined;
  try {
    const j = journal ?? (await journalForVerb(options));
    if (!j.enabled) return undefined;
    const worker = Boolean(options.env.BOARD_CARD || options.env.BOARD_CLAIM);
    // The actor is the profile working the card that ran the verb (for `new`, the director's own card).
    let actor = worker ? ((await agentOf(outcome.verb === 'new' ? options.env.BOARD_CARD : outcome.file)) ?? (await agentOf(options.env.BOARD_CARD)) ?? 'worker') : 'human';
    let cause = causeFromEnv(options.env);
    // Bounded lookups: newest day file first, stopping at the first that holds the event.
    const lookup = lookupOf(j);
    if (actor === 'worker' && cause !== undefined) {
      // The card has left in-progress/ (a yield, a close): its claim event names the profile.
      const since = new Date(options.at.getTime() - CLAIM_WINDOW_MS);
      const id = cause;
      const claim = lookup ? await lookup.byId(id, { since }) : (await j.read({ since })).events.find((e) => e.id === id);
      if (claim?.profile) actor = claim.profile;
    }
    if (cause === undefined && outcome.verb !== 'new') {
      const since = new Date(options.at.getTime() - CAUSE_WINDOW_MS);
      const latest = lookup
        ? await lookup.latestFor(outcome.card, { since })
        : new JournalIndex((await j.read({ card: outcome.card, since })).events).lastFor(outcome.card);
      cause = latest?.id;
    }
    return await j.append({
      kind,
      actor,
      card: outcome.card,
      cause,
      run: options.env.BOARD_RUN || undefined,
      detail: outcome.message,
      ...(outcome.data ? { data: outcome.data } : {}),
      at: options.at,
    });
  } catch {
    return undefined;
  }
}
