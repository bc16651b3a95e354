import fs from 'node:fs/promises';
import path from 'node:path';
import type { RunFact } from '../core/types.js';
import { recordedProcessAlive } from './process-alive.js';
import { createFileExclusive, writeFileAtomic } from './atomic-write.js';

/**
 * Run records: one small JSON file per claim, on the board itself (`KANBAN/.runs/`), so every
 * host sharing the board sees them. The supervisor creates its record exclusively before it
 * launches the worker; a tick that gives up on a claim that never started creates the same file
 * exclusively as "abandoned". Whoever creates it first decides: no claim ever starts two workers,
 * and no started claim is returned as never started.
 */

export interface RunRecord {
  readonly runId: string;
  readonly card: string;
  readonly claim: string;
  readonly state: 'started' | 'exited' | 'abandoned';
  readonly host: string;
  /** The supervisor's PID namespace: its pid is judged only from the same host and namespace. */
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
}

export function runsDir(kanbanDir: string): string {
  return path.join(kanbanDir, '.runs');
}

export function runFile(kanbanDir: string, runId: string): string {
  return path.join(runsDir(kanbanDir), `${runId}.json`);
}

export async function readRunRecord(kanbanDir: string, runId: string): Promise<RunRecord | undefined> {
  try {
    return JSON.parse(await fs.readFile(runFile(kanbanDir, runId), 'utf8')) as RunRecord;
  } catch {
    return undefined;
  }
}

export function runFactOf(record: RunRecord): RunFact {
  // undefined where this process cannot judge the pid (another host or PID namespace): time decides.
  const alive = record.state === 'started' && record.pid !== undefined ? recordedProcessAlive({ ...record, pid: record.pid }) : undefined;
  return {
    state: record.state,
    ...(record.pid !== undefined ? { pid: record.pid } : {}),
    ...(record.exitCode !== undefined ? { exitCode: record.exitCode } : {}),
    ...(alive !== undefined ? { alive } : {}),
  };
}

/** Create the record only if no one has: true when this caller created it. */
export async function createRunRecordExclusive(kanbanDir: string, record: RunRecord): Promise<boolean> {
  await fs.mkdir(runsDir(kanbanDir), { recursive: true });
  try {
    await createFileExclusive(runFile(kanbanDir, record.runId), `${JSON.stringify(record)}\n`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function updateRunRecord(kanbanDir: string, record: RunRecord): Promise<void> {
  await writeFileAtomic(runFile(kanbanDir, record.runId), `${JSON.stringify(record)}\n`);
}
