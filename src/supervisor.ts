#!/usr/bin/env node
/**
 * The supervisor of one run: started detached by a tick, it launches the worker for exactly one
 * claim and records what happened (pid, start, end, exit code) in the run record on the board.
 * It refuses to launch when the claim is no longer the card's (the card was reclaimed, or
 * another supervisor already started this claim).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseFrontMatter } from './format/frontmatter.js';
import { SUPERVISOR_JOB_VAR, SUPERVISOR_SPARE_VAR, type RunJob } from './round/spawner.js';
import { hostIdentity } from './vault/host-identity.js';
import { createRunRecordExclusive, updateRunRecord, type RunRecord } from './vault/runs.js';
// The journal and provenance modules (zod and the event schemas: ~150 ms of start-up) are loaded
// only once the worker has exited: nothing the supervisor does before the spawn needs them.

function note(logFile: string, line: string): void {
  fs.appendFileSync(logFile, `[board supervisor ${new Date().toISOString()}] ${line}\n`);
}

function claimStillHeld(job: RunJob): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(job.card, 'utf8');
  } catch {
    return 'the card is no longer in in-progress/';
  }
  const claimed = parseFrontMatter(text).data.claimed;
  return claimed === job.claim ? undefined : `the card's claim is now ${JSON.stringify(claimed)}, not ${job.claim}`;
}

async function main(): Promise<number> {
  // A spare started ahead by `board watch` gets its job (worker environment included) on stdin;
  // its own environment is only PATH. An end of input with no job (the watcher stopped or died)
  // means there is nothing to supervise.
  const spare = process.env[SUPERVISOR_SPARE_VAR] === '1';
  const raw = spare ? await readStdin() : process.env[SUPERVISOR_JOB_VAR];
  if (!raw) {
    if (spare) return 0;
    process.stderr.write('supervisor: started without a job; it is started by `board tick`\n');
    return 2;
  }
  const job = JSON.parse(raw) as RunJob;
  const workerEnv: NodeJS.ProcessEnv = spare ? { ...job.command.env } : { ...process.env };
  delete workerEnv[SUPERVISOR_JOB_VAR];
  fs.mkdirSync(path.dirname(job.logFile), { recursive: true });

  const refused = claimStillHeld(job);
  if (refused) {
    note(job.logFile, `not starting ${job.runId}: ${refused}`);
    return 0;
  }
  const base: RunRecord = {
    runId: job.runId,
    card: path.basename(job.card),
    claim: job.claim,
    state: 'started',
    ...hostIdentity(),
    pid: process.pid,
    start: new Date().toISOString(),
    log: job.logFile,
  };
  if (!(await createRunRecordExclusive(job.kanbanDir, base))) {
    note(job.logFile, `not starting ${job.runId}: its run record already exists (started elsewhere, or given up)`);
    return 0;
  }
  note(job.logFile, `starting ${job.command.file} for ${base.card} (run ${job.runId}) in ${job.command.cwd}`);
  const out = fs.openSync(job.logFile, 'a');
  // Record updates are chained so a late "spawned" write can never overwrite the "exited" one.
  let writes = Promise.resolve();
  const record = (update: Partial<RunRecord>) => (writes = writes.then(() => updateRunRecord(job.kanbanDir, { ...base, ...update })));
  const finish = (update: Partial<RunRecord>) => {
    const end = new Date().toISOString();
    return record({ ...update, state: 'exited', end }).then(() => recordProvenance(job, base, { ...update, end }));
  };
  return new Promise<number>((resolve) => {
    const child = spawn(job.command.file, [...job.command.args], {
      cwd: job.command.cwd,
      env: workerEnv,
      stdio: ['ignore', out, out],
      shell: false,
    });
    child.once('error', (error) => {
      note(job.logFile, `worker could not start: ${error.message}`);
      void finish({ exitCode: null, error: error.message }).then(() => resolve(1));
    });
    child.once('spawn', () => {
      if (child.pid !== undefined) void record({ workerPid: child.pid });
    });
    child.once('exit', (code, signal) => {
      note(job.logFile, `worker exited with ${code !== null ? `code ${code}` : `signal ${signal}`}`);
      void finish({ ...(child.pid !== undefined ? { workerPid: child.pid } : {}), exitCode: code, signal }).then(() => resolve(0));
    });
  });
}

/**
 * Complete the run's provenance once the worker is gone: start, end, exit code and cost in its
 * manifest, and a `run:exited` event caused by its claim. Never fails the run.
 */
async function recordProvenance(job: RunJob, base: RunRecord, done: Partial<RunRecord>): Promise<void> {
  const p = job.provenance;
  if (!p) return;
  try {
    const [{ openJournal }, { costFromLog }, { updateManifestFile }] = await Promise.all([
      import('./journal/index.js'),
      import('./provenance/cost.js'),
      import('./provenance/manifest.js'),
    ]);
    const cost = p.cost ? await costFromLog(job.logFile, p.cost) : undefined;
    if (p.manifest) {
      await updateManifestFile(p.manifest, {
        ...(base.start !== undefined ? { start: base.start } : {}),
        ...(done.end !== undefined ? { end: done.end } : {}),
        exit_code: done.exitCode ?? null,
        signal: done.signal ?? null,
        ...(cost ? { cost } : {}),
      });
    }
    await openJournal(p.logsDir, { onError: (error) => note(job.logFile, `could not journal the exit: ${error.message}`) }).append({
      kind: 'run:exited',
      actor: 'board',
      card: base.card,
      run: job.runId,
      cause: p.cause,
      ...(done.workerPid !== undefined ? { pid: done.workerPid } : {}),
      detail: done.error ? `worker could not start: ${done.error}` : `exit ${done.exitCode ?? `signal ${done.signal ?? '?'}`}`,
      data: { exit_code: done.exitCode ?? null, tokens: cost?.tokens, usd: cost?.usd },
    });
  } catch (error) {
    note(job.logFile, `could not record the run's provenance: ${(error as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`supervisor: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
