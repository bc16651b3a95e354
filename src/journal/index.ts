/**
 * The journal: an append-only, causally linked history of every transition on the board.
 *
 * Usage from a `board card` verb (or anything else that changes a card):
 *
 *   import { openJournalFromEnv, causeFromEnv } from '../journal/index.js';
 *
 *   const journal = await openJournalFromEnv(env);          // no-op when no logs folder is known
 *   await journal.append({
 *     kind: 'card:closed',                                   // see EVENT_KINDS
 *     actor: card.agent ?? 'human',                          // who did it: a profile name, `board`, `human`
 *     card: path.basename(cardFile),                         // the card's file name, never a path
 *     cause: causeFromEnv(env),                              // BOARD_CAUSE = the worker's claim event
 *     run: env.BOARD_RUN,                                    // optional
 *     detail: 'paths: outputs/x.md',                         // one short human sentence
 *   });
 *
 * Verbs and the kinds they journal: `new` → card:created (its cause is the director's claim when
 * run by a worker, none when run by a person), `note` → card:noted, `close` → card:closed,
 * `yield` → card:yielded, `fail` → card:failed, `block` → card:blocked, `unblock` → card:unblocked,
 * `archive` → card:archived. `append` never throws; dry-run and tests use `noopJournal()`.
 * Reading: `journal.read({ card, since })` returns events oldest first and the lines it could not
 * read (a torn last line after a crash is reported, never fatal); `JournalIndex` + `traceCard`
 * turn them into causal trees. To find one card's latest event (a cause), use `JournalLookup`
 * (`lookupOf(journal)`): it reads day files newest first and stops at the first that holds it.
 */
export { EVENT_KINDS, MAX_LINE_BYTES, journalEventSchema, newEventId, type EventKind, type JournalEvent, type NewEvent } from './event.js';
export {
  appendLine,
  dayFile,
  journalDir,
  noopJournal,
  openJournal,
  parseJournalLine,
  parseJournalText,
  readJournalDir,
  type Journal,
  type JournalProblem,
  type JournalRead,
  type OpenOptions,
  type ReadOptions,
} from './journal.js';
export { CAUSE_VAR, causeFromEnv, logsDirFromEnv, openJournalFromEnv } from './from-env.js';
export { JournalLookup, dayFilesOf, lookupOf, snapshotDayFiles, type DayFiles, type LatestOptions } from './lookup.js';
export { JournalIndex, renderTrace, traceCard, type TraceNode } from './graph.js';
export { journalForVerb, journalVerb, type VerbJournalOptions, type VerbOutcome } from './verbs.js';
