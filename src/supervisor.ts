#!/usr/bin/env node
/**
 * The supervisor of one run: started detached by a tick, it launches the worker for exactly one
 * claim and records what happened (pid, start, end, exit code, how it ended) in the run record on
 * the board. It refuses to launch when the claim is no longer the card's (the card was reclaimed,
 * or another supervisor already started this claim). While the worker runs it keeps the board's
 * control over it: when the card stops being this claim's (reclaimed, cancelled, returned) or the
 * harness's `timeout` passes, the worker's whole process group is stopped (SIGTERM, SIGKILL 10 s
 * later). This holds on every host: the supervisor runs where its worker runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseFrontMatter } from './format/frontmatter.js';
import { SUPERVISOR_JOB_VAR, SUPERVISOR_SPARE_VAR, type RunJob } from './round/spawner.js';
import { hostIdentity } from './vault/host-identity.js';
import { createRunRecordExclusive, readStopRequest, updateRunRecord, type RunRecord, type StopReason } from './vault/runs.js';
import { keepLease } from './worker/lease.js';
import { selectRunner } from './worker/select-runner.js';
// The journal and provenance modules (zod and the event schemas: ~150 ms of start-up) are loaded
// only once the worker has exited: nothing the supervisor does before the spawn needs them.

function note(logFile: string, line: string): void {
  fs.appendFileSync(logFile, `[board supervisor ${new Date().toISOString()}] ${line}\n`);
}

/** A supervisor looks at its claim this often (CONTRACT: at most every 5 s). */
const CLAIM_WATCH_MS = 2_000;
/** SIGTERM to the worker's group, then SIGKILL this much later. */
const STOP_GRACE_MS = 10_000;

type ClaimState = { held: true } | { held: false; closed: boolean; why: string };

/** Whether the card is still this claim's: in in-progress/ with our `claimed`; `closed` when it reached done/ under it. */
function claimState(job: RunJob): ClaimState {
  try {
    const claimed = parseFrontMatter(fs.readFileSync(job.card, 'utf8')).data.claimed;
    return claimed === job.claim ? { held: true } : { held: false, closed: false, why: `the card's claim is now ${JSON.stringify(claimed ?? null)}, not ${job.claim}` };
  } catch {
    // Not in in-progress/ (or unreadable there): closed under this claim, or gone from it.
  }
  try {
    const done = path.join(path.dirname(path.dirname(job.card)), 'done', path.basename(job.card));
    if (parseFrontMatter(fs.readFileSync(done, 'utf8')).data.claimed === job.claim) return { held: false, closed: true, why: 'the card was closed' };
  } catch {
    // Not in done/ either.
  }
  return { held: false, closed: false, why: 'the card is no longer in in-progress/' };
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

  const before = claimState(job);
  if (!before.held) {
    note(job.logFile, `not starting ${job.runId}: ${before.why}`);
    return 0;
  }
  const here = hostIdentity();
  const base: RunRecord = {
    runId: job.runId,
    card: path.basename(job.card),
    claim: job.claim,
    state: 'started',
    host: here.host,
    ...(here.pidns !== undefined ? { pidns: here.pidns } : {}),
    pid: process.pid,
    start: new Date().toISOString(),
    log: job.logFile,
    ...(job.timeoutMs !== undefined ? { timeoutMs: job.timeoutMs } : {}),
    leased: true,
  };
  if (!(await createRunRecordExclusive(job.kanbanDir, base))) {
    note(job.logFile, `not starting ${job.runId}: its run record already exists (started elsewhere, or given up)`);
    return 0;
  }
  const endLease = keepLease(job.kanbanDir, job.runId, (error) => note(job.logFile, `could not renew the run's lease: ${error.message}`));
  note(job.logFile, `starting ${job.command.file} for ${base.card} (run ${job.runId}) in ${job.command.cwd}${job.timeoutMs !== undefined ? `, time budget ${job.timeoutMs / 1000} s` : ''}`);
  // Record updates are chained so a late write can never overwrite the final one.
  let writes = Promise.resolve();
  let current: RunRecord = base;
  const record = (update: Partial<RunRecord>) => {
    current = { ...current, ...update };
    const snapshot = current;
    return (writes = writes.then(() => updateRunRecord(job.kanbanDir, snapshot)).catch((error: Error) => note(job.logFile, `could not update the run record: ${error.message}`)));
  };

  const runner = await selectRunner(job.runner);
  const worker = await runner.start({ ...job.command, env: workerEnv as Record<string, string> }, job.logFile);
  if (worker.facts.workerPid !== undefined || worker.facts.jobId !== undefined) void record({ ...worker.facts });

  // The board's control over the worker: its claim, watched, and its time budget.
  let stopped: StopReason | undefined;
  let closed = false;
  const stop = (reason: StopReason, why: string) => {
    if (stopped) return;
    stopped = reason;
    note(job.logFile, `stopping the worker (${reason}): ${why}; SIGTERM to its process group, SIGKILL ${STOP_GRACE_MS / 1000} s later`);
    void worker.stop(STOP_GRACE_MS);
  };
  const watch = setInterval(() => {
    void (async () => {
      // A Slurm job's state (PENDING, RUNNING …) in the run record, for `board runs`/`status`.
      const jobState = await worker.state?.();
      if (jobState !== undefined && jobState !== current.jobState) void record({ jobState });
      if (stopped || closed) return;
      const state = claimState(job);
      if (state.held) return;
      if (state.closed) {
        closed = true;
        return;
      }
      const request = await readStopRequest(job.kanbanDir, job.runId);
      stop(request?.reason ?? 'returned', request?.detail ? `${state.why} (${request.detail})` : state.why);
    })();
  }, CLAIM_WATCH_MS);
  const budget = job.timeoutMs !== undefined ? setTimeout(() => stop('timed-out', `still running after its harness's timeout of ${job.timeoutMs! / 1000} s`), job.timeoutMs) : undefined;

  const exit = await worker.exited;
  endLease();
  clearInterval(watch);
  if (budget) clearTimeout(budget);
  if (exit.startError) {
    note(job.logFile, `worker could not start: ${exit.startError.code}: ${exit.startError.message}`);
  } else {
    note(job.logFile, `worker exited with ${exit.exitCode !== null ? `code ${exit.exitCode}` : `signal ${exit.signal ?? '?'}`}`);
  }
  if (!closed && !stopped) {
    const after = claimState(job);
    closed = !after.held && after.closed;
    // The board may have stopped it before this supervisor's next look (a tick signals the group,
    // or cancels the job, at once): its stop request says why.
    if (!after.held && !after.closed) {
      const request = await readStopRequest(job.kanbanDir, job.runId);
      if (request) stopped = request.reason;
    }
  }
  const end = new Date().toISOString();
  const final: Partial<RunRecord> = {
    state: 'exited',
    end,
    exitCode: exit.exitCode,
    signal: exit.signal,
    ended: stopped ? 'stopped' : closed ? 'closed' : 'exited',
    ...(stopped ? { stopped } : {}),
    ...(exit.startError ? { startError: exit.startError, error: exit.startError.message } : {}),
    ...(exit.jobState !== undefined ? { jobState: exit.jobState } : {}),
  };
  await record(final);
  await recordProvenance(job, base, { ...current, ...final });
  // Whatever the worker left behind in its group (a daemon it forked, a grandchild) goes too.
  await worker.stop(STOP_GRACE_MS);
  return exit.startError ? 1 : 0;
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
      detail: done.error
        ? `worker could not start: ${done.error}`
        : `exit ${done.exitCode ?? `signal ${done.signal ?? '?'}`}${done.stopped ? ` (stopped: ${done.stopped})` : ''}`,
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
