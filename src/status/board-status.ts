import fs from 'node:fs/promises';
import path from 'node:path';
import type { Plan, WaitKind } from '../core/types.js';
import { runIdFor } from '../core/zombies.js';
import { formatDuration, parseTimestamp } from '../core/time.js';
import { hasEmptyCloseJustification } from '../format/empty-close.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { cardSchema, type Card } from '../schema/card.js';
import { isCardFileName, type VaultLayout } from '../vault/layout.js';
import { mapLimit, readParsed } from '../vault/read-card.js';
import { readRunRecord, runFactOf } from '../vault/runs.js';
import { lockDebris } from '../vault/lock.js';
import type { LastRound } from '../round/last-round.js';
import type { FlowProblem } from '../core/flows.js';
import type { FileProblem } from '../core/types.js';
import { formatProblem } from '../errors.js';
import { debris, isNotACard, leftOutNote, runFailures, startFailures, templateDues, unmatchedByLeftOut, type Debris, type NotACard, type RunFailure, type StartFailure, type TemplateDue } from './facts.js';

/** The board at a glance, for a person: what `board status` prints (and `--json` emits as is). */
export interface BoardStatus {
  readonly now: string;
  readonly vault: string;
  readonly counts: { pending: number; inProgress: number; done: number; archive: number; scheduled: number; ready: number; blocked: number; waiting: number; unreadable: number };
  /** Cards the next round would dispatch, and to whom. */
  readonly ready: readonly { card: string; profile: string; harness: string; model: string }[];
  readonly waiting: readonly { card: string; kind: WaitKind | 'other'; reason: string; profiles?: readonly string[]; leftOut?: readonly string[] }[];
  /** Unmatched cards: the signal the standard prizes — the next agent to write. */
  readonly unmatched: readonly string[];
  readonly blocked: readonly { card: string; state: 'pending' | 'in-progress'; reason: string; since?: string; pending?: true }[];
  readonly inProgress: readonly InProgressStatus[];
  readonly falseCloses: readonly { card: string; closed?: string; agent?: string }[];
  readonly unreadable: readonly FileProblem[];
  /** Profiles and scheduled templates the round leaves out, with why; harness files that failed theirs. */
  readonly leftOut: readonly FileProblem[];
  /** Fields the standard does not know (a profile's any, a card's near misses of known ones). */
  readonly warnings: readonly FileProblem[];
  /** Visible entries of pending/ that are not cards, as the census declared them. */
  readonly notCards: readonly NotACard[];
  /** Harnesses whose program cannot be started: every card they would get waits. */
  readonly cannotStart: readonly { harness: string; reason: string }[];
  /** Harnesses whose workers run without the OS sandbox (`sandbox: none`), with why. */
  readonly unconfined: readonly { harness: string; reason: string }[];
  /** Workers that could not start (their run records' `startError`), for cards not closed yet. */
  readonly couldNotStart: readonly StartFailure[];
  /** Workers that ended without closing their card, newest per card not closed yet, with why and the log. */
  readonly failures?: readonly RunFailure[];
  readonly templates: readonly TemplateDue[];
  /** Temp files of interrupted writes and retired round locks, which the rounds clean up. */
  readonly debris: readonly Debris[];
  readonly lastRound: LastRound | null;
  /** Directors that wait forever: a `dependent_task` naming no card anywhere, or waiting on each other (core/flows.ts). */
  readonly flows?: readonly { card: string; kind: 'deaf' | 'cycle'; reason: string }[];
  /** Something at KANBAN/.board.lock no round can take over (issue 12): every tick fails until a human acts. */
  readonly lockProblem?: string;
}

export interface StatusExtras {
  /** Harness files left out when the config was loaded. */
  readonly harnessProblems?: readonly FileProblem[];
  /** Harnesses whose program cannot be started, with why (config/program.ts). */
  readonly unstartable?: ReadonlyMap<string, string>;
  /** Harnesses that run their workers without the OS sandbox, with why (src/sandbox/mode.ts). */
  readonly unconfined?: ReadonlyMap<string, string>;
  /** Deaf and circular flows found in the round's snapshot. */
  readonly flows?: readonly FlowProblem[];
  /** More warnings the command found (a private env file others can read). */
  readonly warnings?: readonly FileProblem[];
}

export interface InProgressStatus {
  readonly card: string;
  readonly agent?: string;
  readonly model?: string;
  readonly claimed?: string;
  readonly ageMs?: number;
  readonly age?: string;
  /** `alive`/`dead` on this host, `exited` once the run ended, `unknown` elsewhere or without a run record. */
  readonly worker: 'alive' | 'dead' | 'exited' | 'not started' | 'unknown';
  readonly pid?: number;
  /** Slurm runner: the worker's job id and its last known state (`123 RUNNING`). */
  readonly job?: string;
}

const READ_CONCURRENCY = 64;

/** A `blocked` value is "<date> <reason>" by the board's convention: split it when it is. */
export function splitBlocked(value: string): { since?: string; reason: string } {
  const m = /^(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?)\s+(.*)$/s.exec(value.trim());
  return m ? { since: m[1]!, reason: m[2]! } : { reason: value.trim() };
}

/** True for a closed card whose `paths` is empty and whose Record justifies no empty close. */
export function isFalseClose(card: Card, body: string): boolean {
  return card.paths.length === 0 && !hasEmptyCloseJustification(body);
}

export async function boardStatus(layout: VaultLayout, plan: Plan, now: Date, lastRound: LastRound | undefined, extras: StatusExtras = {}): Promise<BoardStatus> {
  const [pendingNames, inProgressNames, doneNames, scheduledNames, archived] = await Promise.all([
    cardNames(layout.pending),
    cardNames(layout.inProgress),
    cardNames(layout.done),
    cardNames(layout.scheduled),
    archiveCount(layout.archive),
  ]);

  const leftOutBy = await unmatchedByLeftOut(layout, plan);
  const waiting = plan.waiting.map((w) => {
    const files = leftOutBy.get(w.card);
    return {
      card: w.card,
      kind: w.kind ?? ('other' as const),
      reason: files ? `${w.reason}; ${leftOutNote(files, plan.profileProblems)}` : w.reason,
      ...(w.profiles ? { profiles: w.profiles } : {}),
      ...(files ? { leftOut: files } : {}),
    };
  });
  // Only a card no profile (left out or not) could take is the next agent to write.
  const unmatched = waiting.filter((w) => w.kind === 'unmatched' && !w.leftOut).map((w) => w.card);

  const inProgressCards = await mapLimit(inProgressNames, READ_CONCURRENCY, (n) => readParsed(path.join(layout.inProgress, n), n, cardSchema));
  const inProgressNamesSet = new Set(inProgressNames);
  const blocked = await Promise.all(
    plan.blocked.map(async (b) => {
      const state: 'pending' | 'in-progress' = inProgressNamesSet.has(b.card) ? 'in-progress' : 'pending';
      if (b.new) return { card: b.card, state, reason: b.reason, pending: true as const };
      const parsed = (state === 'in-progress' ? inProgressCards.find((c) => c.file === b.card) : await readParsed(path.join(layout.pending, b.card), b.card, cardSchema)) ?? undefined;
      const value = parsed?.ok && typeof parsed.value.blocked === 'string' ? parsed.value.blocked : b.reason.replace(/^blocked: /, '');
      return { card: b.card, state, ...splitBlocked(value) };
    }),
  );

  const inProgress: InProgressStatus[] = [];
  await mapLimit(inProgressCards, READ_CONCURRENCY, async (parsed) => {
    if (!parsed.ok) return;
    const card = parsed.value;
    const claimedMs = card.claimed ? parseTimestamp(card.claimed) : Number.NaN;
    const ageMs = Number.isNaN(claimedMs) ? undefined : Math.max(0, now.getTime() - claimedMs);
    let worker: InProgressStatus['worker'] = card.claimed ? 'not started' : 'unknown';
    let pid: number | undefined;
    let job: string | undefined;
    if (card.claimed) {
      const record = await readRunRecord(layout.kanban, runIdFor(parsed.file, card.claimed, card.attempts));
      if (record) {
        const fact = runFactOf(record);
        pid = record.workerPid ?? record.pid;
        if (record.jobId !== undefined) job = `${record.jobId}${record.jobState ? ` ${record.jobState}` : ''}`;
        worker = fact.state === 'exited' ? 'exited' : fact.state === 'abandoned' ? 'not started' : fact.alive === true ? 'alive' : fact.alive === false ? 'dead' : 'unknown';
      }
    }
    inProgress.push({
      card: parsed.file,
      ...(card.agent ? { agent: card.agent } : {}),
      ...(card.model ? { model: card.model } : {}),
      ...(card.claimed ? { claimed: card.claimed } : {}),
      ...(ageMs !== undefined ? { ageMs, age: formatDuration(ageMs) } : {}),
      worker,
      ...(pid !== undefined ? { pid } : {}),
      ...(job !== undefined ? { job } : {}),
    });
  });
  inProgress.sort((a, b) => (a.card < b.card ? -1 : 1));

  const falseCloses: { card: string; closed?: string; agent?: string }[] = [];
  // The census declares what is not a card among its problems (one wording, the census's own):
  // status lists those under notCards, and only the rest as unreadable cards.
  const declared = plan.invalid.filter(isNotACard).map((p) => ({ file: p.file, reason: p.reason }));
  const unreadable = plan.invalid.filter((p) => !isNotACard(p));
  await mapLimit(doneNames, READ_CONCURRENCY, async (name) => {
    let text: string;
    try {
      text = await fs.readFile(path.join(layout.done, name), 'utf8');
    } catch {
      return;
    }
    let data: Record<string, unknown>;
    let body: string;
    try {
      ({ data, body } = parseFrontMatter(text));
    } catch (error) {
      unreadable.push({ file: `done/${name}`, reason: (error as Error).message });
      return;
    }
    const parsed = cardSchema.safeParse(data);
    if (!parsed.success) return;
    if (isFalseClose(parsed.data, body)) {
      falseCloses.push({ card: name, ...(parsed.data.closed ? { closed: parsed.data.closed } : {}), ...(parsed.data.agent ? { agent: parsed.data.agent } : {}) });
    }
  });
  falseCloses.sort((a, b) => (a.card < b.card ? -1 : 1));
  const [couldNotStart, failures, templates, left] = await Promise.all([
    startFailures(layout, [...pendingNames, ...inProgressNames]),
    runFailures(layout, [...pendingNames, ...inProgressNames]),
    templateDues(layout, now),
    // Files age on the real clock, whatever --now says.
    debris(layout, Date.now()),
  ]);
  const pendingUnreadable = plan.invalid.filter((p) => pendingNames.includes(p.file)).length;
  const lockProblem = await lockDebris(layout.kanban);

  return {
    now: now.toISOString(),
    vault: layout.root,
    counts: {
      pending: pendingNames.length,
      inProgress: inProgressNames.length,
      done: doneNames.length,
      archive: archived,
      scheduled: scheduledNames.length,
      ready: plan.dispatch.length,
      blocked: blocked.length,
      waiting: waiting.length,
      unreadable: pendingUnreadable,
    },
    ready: plan.dispatch.map((d) => ({ card: d.card, profile: d.profile, harness: d.harness, model: d.model })),
    waiting,
    unmatched,
    blocked,
    inProgress,
    falseCloses,
    unreadable,
    leftOut: [...plan.profileProblems, ...plan.templateProblems, ...(extras.harnessProblems ?? [])],
    warnings: [...(extras.warnings ?? []), ...(plan.warnings ?? [])],
    notCards: declared,
    cannotStart: [...(extras.unstartable ?? new Map<string, string>())].map(([harness, reason]) => ({ harness, reason })).sort((a, b) => (a.harness < b.harness ? -1 : 1)),
    unconfined: [...(extras.unconfined ?? new Map<string, string>())].map(([harness, reason]) => ({ harness, reason })).sort((a, b) => (a.harness < b.harness ? -1 : 1)),
    couldNotStart,
    failures,
    templates,
    debris: left,
    lastRound: lastRound ?? null,
    ...(extras.flows && extras.flows.length > 0 ? { flows: extras.flows.map((f) => ({ card: f.card, kind: f.kind, reason: f.reason })) } : {}),
    ...(lockProblem ? { lockProblem } : {}),
  };
}

const KIND_LABEL: Record<WaitKind | 'other', string> = {
  unmatched: 'unmatched',
  ambiguous: 'ambiguous',
  input: 'missing input',
  human: "a human's card",
  harness: 'harness problem',
  model: 'model missing',
  keys: 'private keys missing',
  capacity: 'round limit reached',
  clash: 'name already in done/',
  other: 'waiting',
};

/** The status for a person: counts first, then what needs a look, most actionable first. */
export function statusText(s: BoardStatus): string {
  const c = s.counts;
  const lines = [
    `board on ${s.vault} at ${s.now}`,
    `  pending ${c.pending} (ready ${c.ready}, waiting ${c.waiting}, blocked ${c.blocked}${c.unreadable > 0 ? `, unreadable ${c.unreadable}` : ''})  ·  in-progress ${c.inProgress}  ·  done ${c.done}  ·  archive ${c.archive}  ·  scheduled ${c.scheduled}`,
  ];
  if (s.lastRound) {
    const r = s.lastRound;
    lines.push(`  last round: ${r.time} by ${r.by}: ${r.outcome}${r.error ? ` (${r.error})` : ''}${lastRoundCounts(r.counts)}`);
  } else {
    lines.push('  last round: none recorded (no tick or watch has run with this config yet)');
  }
  if (s.lockProblem) lines.push(`  round lock: BROKEN, no round can run: ${s.lockProblem}`);
  const section = (title: string, rows: string[]) => {
    if (rows.length === 0) return;
    lines.push('', `${title} (${rows.length})`, ...rows.map((r) => `  ${r}`));
  };
  if (s.unmatched.length > 0) {
    lines.push(
      '',
      `${s.unmatched.length} unmatched card${s.unmatched.length === 1 ? '' : 's'}: no profile handles ${s.unmatched.length === 1 ? 'it' : 'them'}. ` +
        "Either a profile needs a new descriptor, or you've just found the next agent you need to write.",
    );
  }
  section('profiles and templates left out (fix them: the round ignores them)', s.leftOut.map(formatProblem));
  section('harnesses that cannot start (their cards wait)', s.cannotStart.map((h) => `${h.harness} — ${h.reason}`));
  section('harnesses without the OS sandbox (`sandbox: none`: their workers see what the board sees)', (s.unconfined ?? []).map((h) => `${h.harness} — ${h.reason}`));
  section('workers that could not start (a harness problem: no attempt spent)', s.couldNotStart.map((f) => `${f.card} — ${f.code ? `${f.code}: ` : ''}${f.message}${f.at ? ` (${f.at})` : ''}`));
  section('workers that failed (the last failure of each card not closed yet)', (s.failures ?? []).map((f) => `${f.card} — ${f.exit ? `${f.exit}: ` : ''}${f.reason}${f.log ? ` (log: ${f.log})` : ''}`));
  section('flows that wait forever (deaf or circular: repair with `board card rewire`)', (s.flows ?? []).map((f) => `${f.card} — ${f.reason}`));
  section('ready for the next round', s.ready.map((r) => `${r.card} → ${r.profile}  [${r.harness} / ${r.model}]`));
  section(
    'waiting',
    // The label says the kind once: a reason that starts with it ("ambiguous: …") does not say it again.
    s.waiting.map((w) => `${w.card} — ${KIND_LABEL[w.kind]}${w.profiles ? ` between ${w.profiles.join(' and ')}` : ''}: ${w.reason.replace(new RegExp(`^${w.kind}: `), '')}`),
  );
  section('blocked', s.blocked.map((b) => `${b.card}${b.state === 'in-progress' ? ' (in-progress)' : ''} — ${b.pending ? 'blocked at the next round: ' : ''}${b.reason}${b.since ? ` (since ${b.since})` : ''}`));
  section(
    'in progress',
    s.inProgress.map((p) => `${p.card} — ${p.agent ?? '(no agent)'} on ${p.model ?? '(no model)'}, claimed ${p.age ? `${p.age} ago` : '(never stamped)'}, worker ${p.worker}${p.pid ? ` (pid ${p.pid})` : ''}${p.job ? `, Slurm job ${p.job}` : ''}`),
  );
  section('false closes (done with empty paths and no justification)', s.falseCloses.map((f) => `${f.card}${f.agent ? ` — closed by ${f.agent}` : ''}${f.closed ? ` at ${f.closed}` : ''}`));
  section('unreadable cards (never rewritten)', s.unreadable.map(formatProblem));
  section('not cards (in pending/, left alone)', s.notCards.map((n) => `${n.file} — ${n.reason}`));
  section('warnings', s.warnings.map(formatProblem));
  section('debris (the rounds clean it up)', s.debris.map((d) => `${d.file} — ${d.reason}`));
  return `${lines.join('\n')}\n`;
}

/**
 * The last round's counts, once each: what it planned, then what it did (a key planned and done,
 * like `blocked`, is not repeated as two bare "blocked 1").
 */
function lastRoundCounts(counts: Readonly<Record<string, number>> | undefined): string {
  if (!counts) return '';
  const planned = Object.entries(counts).filter(([k, n]) => !k.startsWith('did:') && n > 0).map(([k, n]) => `${k} ${n}`);
  const did = Object.entries(counts).filter(([k, n]) => k.startsWith('did:') && n > 0).map(([k, n]) => `${k.slice(4)} ${n}`);
  if (planned.length + did.length === 0) return ' — nothing to do';
  return ` — planned: ${planned.join(', ') || 'nothing'}${did.length > 0 ? `; done: ${did.join(', ')}` : ''}`;
}

async function cardNames(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).filter((e) => !e.isDirectory() && isCardFileName(e.name)).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

async function archiveCount(dir: string): Promise<number> {
  let months: string[];
  try {
    months = (await fs.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return 0;
  }
  const counts = await Promise.all(months.map(async (m) => (await cardNames(path.join(dir, m))).length));
  return counts.reduce((a, b) => a + b, 0);
}
