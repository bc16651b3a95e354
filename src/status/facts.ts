import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { normalize } from '../core/normalize.js';
import { currentPeriod } from '../core/schedule.js';
import type { FileProblem, Plan } from '../core/types.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { scheduledTemplateSchema } from '../schema/card.js';
import { isCardFileName, type VaultLayout } from '../vault/layout.js';
import { mapLimit, readParsed } from '../vault/read-card.js';
import { runsDir } from '../vault/runs.js';
import { BOARD_RECORD_MAX_BYTES, readBoardText } from '../vault/board-file.js';
import { isBoardTempName } from '../vault/atomic-write.js';

const READ_CONCURRENCY = 64;

/** Something visible in a state folder that is not a card: declared by the census, never read through, never moved. */
export interface NotACard {
  readonly file: string;
  readonly reason: string;
}

/** A run whose worker could not be started (the supervisor's `startError` in its run record). */
export interface StartFailure {
  readonly card: string;
  readonly runId: string;
  readonly code?: string;
  readonly message: string;
  readonly at?: string;
}

/** Each scheduled template's next due moment (local time), or why it has none. */
export interface TemplateDue {
  readonly template: string;
  readonly next?: string;
  readonly paused?: true;
  readonly problem?: string;
}

async function list(dir: string): Promise<Dirent[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}

/** A census problem that declares an entry that is not a card (CONTRACT "What the census reads"). */
export function isNotACard(problem: FileProblem): boolean {
  return problem.reason.startsWith('not a card');
}

/** A run whose worker ended without closing its card, with the reason it kept (core/failure-reason.ts). */
export interface RunFailure {
  readonly card: string;
  readonly runId: string;
  readonly reason: string;
  readonly log?: string;
  readonly exit?: string;
  readonly at?: string;
}

interface RecordOnDisk {
  runId?: string; card?: string; start?: string; end?: string; log?: string; exitCode?: number | null; signal?: string | null;
  ended?: string; stopped?: string; reason?: string; startError?: { code?: string; message?: string } | string;
}

/**
 * For cards still pending or in progress: the newest run record per card (`KANBAN/.runs/<card
 * stem>.*.json`) that `pick` turns into a fact. One listing, and only the named cards' records read.
 */
async function newestPerCard<T extends { readonly card: string; readonly runId: string }>(layout: VaultLayout, cards: readonly string[], pick: (record: RecordOnDisk, card: string, runId: string) => T | undefined): Promise<T[]> {
  const stems = new Map(cards.map((c) => [c.replace(/\.md$/, ''), c]));
  // A run id is `<card stem>.<claim stamp>.a<attempts>` (core/zombies.ts runIdFor).
  const stemOf = (file: string) => file.replace(/\.json$/, '').replace(/\.[0-9A-Za-z]*\.a\d+$/, '');
  const records = (await list(runsDir(layout.kanban))).filter((e) => e.isFile() && e.name.endsWith('.json'));
  const wanted = records.filter((e) => stems.has(stemOf(e.name)));
  const found = await mapLimit(wanted, READ_CONCURRENCY, async (e): Promise<T | undefined> => {
    try {
      const record = JSON.parse(await readBoardText(path.join(runsDir(layout.kanban), e.name), { maxBytes: BOARD_RECORD_MAX_BYTES })) as RecordOnDisk;
      const runId = record.runId ?? e.name.replace(/\.json$/, '');
      const card = stems.get(stemOf(e.name)) ?? (record.card ? path.basename(record.card) : runId);
      return pick(record, card, runId);
    } catch {
      return undefined;
    }
  });
  // The newest record per card: its run id carries the claim's time, so it sorts by time.
  const newest = new Map<string, T>();
  for (const f of found) if (f && (!newest.has(f.card) || newest.get(f.card)!.runId < f.runId)) newest.set(f.card, f);
  return [...newest.values()].sort((a, b) => (a.card < b.card ? -1 : 1));
}

/**
 * Workers that could not start, for cards still pending or in progress: read from run records
 * (`KANBAN/.runs/<card stem>.*.json`) that carry a `startError`, newest per card.
 */
export async function startFailures(layout: VaultLayout, cards: readonly string[]): Promise<StartFailure[]> {
  return newestPerCard(layout, cards, (record, card, runId) => {
    if (record.startError === undefined || record.startError === null) return undefined;
    const error = typeof record.startError === 'string' ? { message: record.startError } : record.startError;
    return { card, runId, ...(error.code ? { code: error.code } : {}), message: error.message ?? 'could not start', ...((record.end ?? record.start) ? { at: (record.end ?? record.start)! } : {}) };
  });
}

/**
 * Workers that ended without closing, for cards still pending or in progress, with the reason
 * their supervisor kept and the log's path: the newest such run per card. A card closed since is
 * not listed (only pending and in-progress cards are asked for).
 */
export async function runFailures(layout: VaultLayout, cards: readonly string[]): Promise<RunFailure[]> {
  return newestPerCard(layout, cards, (record, card, runId) => {
    if (record.end === undefined || record.ended === 'closed' || typeof record.reason !== 'string' || record.startError !== undefined) return undefined;
    const exit = record.stopped !== undefined ? `stopped: ${record.stopped}` : record.exitCode !== undefined && record.exitCode !== null ? `exit ${record.exitCode}` : record.signal ? `signal ${record.signal}` : undefined;
    return { card, runId, reason: record.reason, ...(record.log ? { log: record.log } : {}), ...(exit ? { exit } : {}), at: record.end };
  });
}

function localStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The next moment each template's instance is due (the current period's when still ahead, else the next one's). */
export async function templateDues(layout: VaultLayout, now: Date): Promise<TemplateDue[]> {
  const names = (await list(layout.scheduled)).filter((e) => !e.isDirectory() && isCardFileName(e.name)).map((e) => e.name);
  return mapLimit(names, READ_CONCURRENCY, async (name): Promise<TemplateDue> => {
    const parsed = await readParsed(path.join(layout.scheduled, name), `scheduled/${name}`, scheduledTemplateSchema);
    if (!parsed.ok) return { template: name, problem: parsed.problems.map((p) => p.reason).join('; ') };
    const trigger = parsed.value.trigger;
    if (!trigger.active) return { template: name, paused: true };
    const period = currentPeriod(trigger, now);
    const next = now.getTime() < period.due.getTime() ? period.due : currentPeriod(trigger, period.end).due;
    return { template: name, next: localStamp(next) };
  });
}

/**
 * Unmatched cards whose `function` belongs to a profile the round left out (invalid, or a name
 * two profiles share): the real cause, which "write the next agent" would misdiagnose.
 * card → the left-out profile files with that function.
 */
export async function unmatchedByLeftOut(layout: VaultLayout, plan: Plan): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const unmatched = plan.waiting.filter((w) => w.kind === 'unmatched');
  const leftOut = [...new Set(plan.profileProblems.map((p) => p.file))];
  if (unmatched.length === 0 || leftOut.length === 0) return out;
  const byFunction = new Map<string, string[]>();
  await mapLimit(leftOut, READ_CONCURRENCY, async (file) => {
    try {
      const fn = parseFrontMatter(await fs.readFile(layout.absolute(file), 'utf8')).data.function;
      if (typeof fn === 'string') byFunction.set(normalize(fn), [...(byFunction.get(normalize(fn)) ?? []), file]);
    } catch {
      // Unreadable as YAML: its function is unknown, and its problem is shown already.
    }
  });
  await mapLimit(unmatched, READ_CONCURRENCY, async (w) => {
    try {
      const fn = parseFrontMatter(await fs.readFile(path.join(layout.pending, w.card), 'utf8')).data.function;
      const files = typeof fn === 'string' ? byFunction.get(normalize(fn)) : undefined;
      if (files) out.set(w.card, files.sort());
    } catch {
      // Gone since the plan was made: nothing to say about it.
    }
  });
  return out;
}

/** The sentence for an unmatched card whose profile was left out. */
export function leftOutNote(files: readonly string[], problems: readonly FileProblem[]): string {
  const why = problems.filter((p) => files.includes(p.file)).map((p) => p.reason);
  const one = files.length === 1;
  return `its profile${one ? '' : 's'} ${files.join(', ')} ${one ? 'is' : 'are'} left out (${[...new Set(why)].join('; ')}): fix ${one ? 'it' : 'them'}, not a new agent`;
}

/** What a crash or a takeover left on the board: shown, removed by the rounds themselves. */
export interface Debris {
  readonly file: string;
  readonly reason: string;
}

/**
 * Temp files of interrupted writes (`.<name>.<pid>.<hex>.tmp`, which a round sweeps once an hour
 * old) and retired round locks (`.board.lock.<token>.retired`, pruned after an hour), with ages.
 */
export async function debris(layout: VaultLayout, nowMs: number): Promise<Debris[]> {
  const out: Debris[] = [];
  const folders: [string, string][] = [
    ['', layout.kanban],
    ['scheduled/', layout.scheduled],
    ['pending/', layout.pending],
    ['in-progress/', layout.inProgress],
    ['done/', layout.done],
    ['.runs/', runsDir(layout.kanban)],
  ];
  for (const [shown, dir] of folders) {
    for (const e of await list(dir)) {
      const temp = isBoardTempName(e.name);
      const retired = shown === '' && /^\.board\.lock\..+\.retired$/.test(e.name);
      if (!temp && !retired) continue;
      const age = await fs.lstat(path.join(dir, e.name)).then((st) => Math.max(0, nowMs - st.mtimeMs), () => undefined);
      if (age === undefined) continue;
      const minutes = Math.round(age / 60_000);
      out.push({
        file: `${shown}${e.name}`,
        reason: temp ? `the temp file of an interrupted write, ${minutes} min old (a round removes it past 60 min)` : `a round lock taken over from a dead holder, ${minutes} min old (pruned past 60 min)`,
      });
    }
  }
  return out;
}
