import fs from 'node:fs/promises';
import path from 'node:path';
import type { RunFact } from '../core/types.js';
import type { UsageTotals } from '../proxy/usage.js';
import { sameProcessSpace } from './host-identity.js';
import { isProcessAlive } from './process-alive.js';
import { createFileExclusive, createFileExclusiveBlocking, writeFileAtomic } from './atomic-write.js';
import { BOARD_RECORD_MAX_BYTES, readBoardText } from './board-file.js';
import { ensureFolder, inFolder } from './file-ops.js';

/**
 * Run records: one small JSON file per claim, on the board itself (`KANBAN/.runs/`), so every
 * host sharing the board sees them. The supervisor creates its record exclusively before it
 * launches the worker; a tick that gives up on a claim that never started creates the same file
 * exclusively as "abandoned". Whoever creates it first decides: no claim ever starts two workers,
 * and no started claim is returned as never started.
 */

/** Why a supervisor stopped its worker (CONTRACT "Workers are under the board's control"). */
export type StopReason = 'reclaimed' | 'cancelled' | 'timed-out' | 'returned' | 'over-budget';

export interface RunRecord {
  readonly runId: string;
  readonly card: string;
  readonly claim: string;
  readonly state: 'started' | 'exited' | 'abandoned';
  readonly host: string;
  /** The PID namespace of `host` the pids belong to (src/vault/host-identity.ts). */
  readonly pidns?: string;
  /** The supervisor's pid. */
  readonly pid?: number;
  readonly workerPid?: number;
  readonly start?: string;
  readonly end?: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly log?: string;
  readonly error?: string;
  /** How the run ended: the worker closed its card, exited on its own, or was stopped. */
  readonly ended?: 'closed' | 'exited' | 'stopped';
  readonly stopped?: StopReason;
  /** The worker could not be started at all (spawn ENOENT/EACCES, sbatch refused): no attempt is spent. */
  readonly startError?: { readonly code: string; readonly message: string };
  /** The harness's time budget in ms, when it has one. */
  readonly timeoutMs?: number;
  /** Slurm runner: the job id and its last known state. */
  readonly jobId?: string;
  readonly jobState?: string;
  /** The worker's OS sandbox: what it could read, write and reach; or why it ran unconfined. */
  readonly sandbox?: RunSandboxRecord;
  /** What the run's credential proxy measured: requests, tokens, and USD when priced. */
  readonly usage?: UsageTotals;
  /** Why a worker ended without closing its card: one line, at most 200 characters (core/failure-reason.ts). */
  readonly reason?: string;
  /** The last lines of its log (at most 20 lines / 4 KiB), escaped and with secrets scrubbed. */
  readonly tail?: string;
  /** Its supervisor renews this record's mtime while it lives (its lease, src/worker/lease.ts). */
  readonly leased?: boolean;
}

/** A `board card` verb the board refused to a worker: its own stderr line, kept for the run's reason. */
export interface Refusal {
  readonly verb: string;
  readonly message: string;
  readonly at: string;
}

export type RunSandboxRecord =
  | { readonly confined: true; readonly reads: readonly string[]; readonly writes: readonly string[]; readonly masked: readonly string[]; readonly hosts: readonly string[] }
  | { readonly confined: false; readonly why: string };

/** A request to stop a run's worker, written before its card leaves the claim (cancel, reclaim). */
export interface StopRequest {
  readonly reason: StopReason;
  readonly at: string;
  readonly detail?: string;
}

export function runsDir(kanbanDir: string): string {
  return path.join(kanbanDir, '.runs');
}

export function runFile(kanbanDir: string, runId: string): string {
  return path.join(runsDir(kanbanDir), `${runId}.json`);
}

export async function readRunRecord(kanbanDir: string, runId: string): Promise<RunRecord | undefined> {
  try {
    return JSON.parse(await readBoardText(runFile(kanbanDir, runId), { maxBytes: BOARD_RECORD_MAX_BYTES })) as RunRecord;
  } catch {
    return undefined;
  }
}

/** What the round knows of a run from its record; `leaseAgeMs` when the shell measured its lease. */
export function runFactOf(record: RunRecord, leaseAgeMs?: number): RunFact {
  const judgeable = sameProcessSpace(record);
  return {
    state: record.state,
    host: record.host,
    ...(leaseAgeMs !== undefined && record.leased === true && record.state === 'started' ? { leaseAgeMs } : {}),
    ...(record.pid !== undefined ? { pid: record.pid } : {}),
    ...(record.exitCode !== undefined ? { exitCode: record.exitCode } : {}),
    ...(record.state === 'started' && judgeable && record.pid !== undefined ? { alive: isProcessAlive(record.pid) } : {}),
    ...(record.stopped !== undefined ? { stopped: record.stopped } : {}),
    ...(record.startError !== undefined ? { startError: `${record.startError.code}: ${record.startError.message}` } : {}),
    ...(record.timeoutMs !== undefined ? { timeoutMs: record.timeoutMs } : {}),
    ...(record.ended !== undefined ? { ended: record.ended } : {}),
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.log !== undefined ? { log: record.log } : {}),
  };
}

function refusalFile(kanbanDir: string, runId: string): string {
  return path.join(runsDir(kanbanDir), `${runId}.refused`);
}

/**
 * Keep a verb's refusal next to the run's record (the last one wins): the supervisor makes it the
 * run's reason when the worker ends without closing. A file of its own, not a field of the record:
 * the supervisor rewrites the record whole and would drop a field written by someone else.
 */
export async function recordRefusal(kanbanDir: string, runId: string, refusal: Refusal): Promise<void> {
  await ensureFolder(runsDir(kanbanDir));
  await writeFileAtomic(refusalFile(kanbanDir, runId), `${JSON.stringify(refusal)}\n`);
}

export async function readRefusal(kanbanDir: string, runId: string): Promise<Refusal | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(refusalFile(kanbanDir, runId), 'utf8')) as Partial<Refusal>;
    return typeof value.verb === 'string' && typeof value.message === 'string' ? { verb: value.verb, message: value.message, at: String(value.at ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

function stopFile(kanbanDir: string, runId: string): string {
  return path.join(runsDir(kanbanDir), `${runId}.stop`);
}

/** Ask the run's supervisor (wherever it runs) to stop its worker, and say why. */
export async function requestStop(kanbanDir: string, runId: string, request: StopRequest): Promise<void> {
  await ensureFolder(runsDir(kanbanDir));
  await writeFileAtomic(stopFile(kanbanDir, runId), `${JSON.stringify(request)}\n`);
}

export async function readStopRequest(kanbanDir: string, runId: string): Promise<StopRequest | undefined> {
  try {
    return JSON.parse(await readBoardText(stopFile(kanbanDir, runId), { maxBytes: BOARD_RECORD_MAX_BYTES })) as StopRequest;
  } catch {
    return undefined;
  }
}

/**
 * Signal a run's worker process group at once, when its pid can be judged here (same host and
 * PID namespace): a tick or a cancel need not wait for the supervisor's next look. The supervisor
 * still owns the SIGKILL that follows. True when a signal was sent.
 */
export function signalWorkerGroup(record: RunRecord | undefined, signal: NodeJS.Signals): boolean {
  if (!record || record.workerPid === undefined || record.end !== undefined || !sameProcessSpace(record)) return false;
  try {
    process.kill(-record.workerPid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Create the record only if no one has: true when this caller created it. `blocking`: with
 * blocking calls, for a caller with nothing else to do meanwhile (a supervisor before its worker
 * starts: `createFileExclusiveBlocking`).
 */
export async function createRunRecordExclusive(kanbanDir: string, record: RunRecord, options: { blocking?: boolean } = {}): Promise<boolean> {
  const create = () => (options.blocking ? createFileExclusiveBlocking : createFileExclusive)(runFile(kanbanDir, record.runId), `${JSON.stringify(record)}\n`);
  try {
    await inFolder(runsDir(kanbanDir), create);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function updateRunRecord(kanbanDir: string, record: RunRecord): Promise<void> {
  await writeFileAtomic(runFile(kanbanDir, record.runId), `${JSON.stringify(record)}\n`);
}

/**
 * How many of the card's runs before `currentRunId`, most recent first, never started (abandoned,
 * or a worker that could not be started), up to the first that did. Run ids begin with the card's
 * stem; each candidate record is checked for its card name.
 */
export async function neverStartedInARow(kanbanDir: string, card: string, currentRunId: string): Promise<number> {
  const records = await earlierRuns(kanbanDir, card, currentRunId);
  let n = 0;
  for (const r of records) {
    if (r.state === 'abandoned' || r.startError !== undefined) n += 1;
    else break;
  }
  return n;
}

/** The card's run records other than `currentRunId`, most recent first (run ids begin with the card's stem). */
async function earlierRuns(kanbanDir: string, card: string, currentRunId: string): Promise<RunRecord[]> {
  const stem = card.replace(/\.md$/, '');
  let names: string[];
  try {
    names = (await fs.readdir(runsDir(kanbanDir))).filter((n) => n.startsWith(`${stem}.`) && n.endsWith('.json') && n !== `${currentRunId}.json`);
  } catch {
    return [];
  }
  const records: RunRecord[] = [];
  for (const n of names) {
    const r = await readRunRecord(kanbanDir, n.slice(0, -'.json'.length));
    if (r && r.card === card) records.push(r);
  }
  return records.sort((a, b) => (a.claim < b.claim ? 1 : a.claim > b.claim ? -1 : 0));
}

/**
 * The card's run just before `currentRunId`, when it ended without closing the card: its exit
 * code and reason, what the round compares the current failure with (core/zombies.ts). Runs that
 * never started are not failures of the card and are passed over.
 */
export async function previousFailure(kanbanDir: string, card: string, currentRunId: string): Promise<RunFact | undefined> {
  for (const r of await earlierRuns(kanbanDir, card, currentRunId)) {
    if (r.state === 'abandoned' || r.startError !== undefined) continue;
    return r.state === 'exited' && r.ended !== 'closed' ? runFactOf(r) : undefined;
  }
  return undefined;
}
