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
import { SUPERVISOR_SPARE_VAR, WORKER_STARTED_LINE, type RunJob } from './round/spawner.js';
import { appendBoardFileSync } from './vault/board-file.js';
import { hostIdentity } from './vault/host-identity.js';
import { createRunRecordExclusive, readStopRequest, updateRunRecord, type RunRecord, type StopReason } from './vault/runs.js';
import { failureReason } from './worker/failure-reason.js';
import { keepLease } from './worker/lease.js';
import { readToEnd } from './worker/read-to-end.js';
import { selectRunner } from './worker/select-runner.js';
import { notStarted, type StartedWorker } from './worker/runner.js';
import type { ComposedCommand } from './core/compose.js';
import { prepareConfinement, type Confinement } from './sandbox/confine.js';
import { MODEL_BRIDGE_PORT } from './sandbox/policy.js';
import { startVerbServer, type VerbServer } from './sandbox/verb-server.js';
import { startCredentialProxy, type CredentialProxy } from './proxy/credential-proxy.js';
import { BOARD_CLI } from './entry-points.js';
import { ensureFolderSync } from './vault/file-ops.js';
// The journal and provenance modules (zod and the event schemas: ~150 ms of start-up) are loaded
// only once the worker has exited: nothing the supervisor does before the spawn needs them.

function note(logFile: string, line: string): void {
  // Never through a link or into a FIFO planted at the log's name (src/vault/board-file.ts); a
  // note that cannot be written does not stop the supervisor (the run record still tells).
  try {
    appendBoardFileSync(logFile, `[board supervisor ${new Date().toISOString()}] ${line}\n`);
  } catch (error) {
    process.stderr.write(`board supervisor: ${(error as Error).message}\n`);
  }
}

/**
 * Tells `board watch` (which reads this supervisor's stdout, src/round/spawner.ts) that the worker
 * has started or could not: it starts its next spare only now, so that spare's start-up does not
 * compete with this run's. Once; a stdout that is gone (the watcher ended, or a tick's supervisor:
 * /dev/null) changes nothing.
 */
function saidStarted(): void {
  try {
    fs.writeSync(1, WORKER_STARTED_LINE);
  } catch {
    // No one to tell.
  }
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

/** Whether the worker runs in the OS sandbox: a local run of a confined job (a Slurm job runs on another node). */
function confinedJob(job: RunJob): boolean {
  return job.sandbox?.confined === true && (job.runner?.kind ?? 'local') === 'local';
}

async function main(): Promise<number> {
  // A spare started ahead by `board watch` gets its job (worker environment included) on stdin;
  // its own environment is only PATH. An end of input with no job (the watcher stopped or died)
  // means there is nothing to supervise.
  if (process.env[SUPERVISOR_SPARE_VAR] !== '1') {
    process.stderr.write('supervisor: started without a job; it is started by `board tick`\n');
    return 2;
  }
  const raw = (await readToEnd(0, () => process.stdin)).toString('utf8');
  if (!raw) return 0;
  const job = JSON.parse(raw) as RunJob;
  const workerEnv: Record<string, string> = { ...job.command.env };
  ensureFolderSync(path.dirname(job.logFile));

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
    // An unconfined run's sandbox fact is known now: in the record it creates, not in a second
    // write beside the worker's start.
    ...(!confinedJob(job) ? { sandbox: { confined: false, why: job.sandbox?.confined === false ? job.sandbox.why : 'none' } } : {}),
  };
  if (!(await createRunRecordExclusive(job.kanbanDir, base, { blocking: true }))) {
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
  let command: ComposedCommand = { ...job.command, env: workerEnv };
  const confined = confinedJob(job);
  // The OS sandbox (local runner only: a Slurm job runs on another node), the run's credential
  // proxy and its verb server: made before the worker starts, or the worker does not start (a
  // start error: no attempt is spent).
  let confinement: Confinement | undefined;
  let proxy: CredentialProxy | undefined;
  let verbs: VerbServer | undefined;
  let overBudget: string | undefined;
  let startProblem: { code: string; message: string } | undefined;
  const onOverBudget = (reason: string) => {
    overBudget = reason;
    note(job.logFile, `over budget: ${reason}`);
    stopWorker?.('over-budget', reason);
  };
  let stopWorker: ((reason: StopReason, why: string) => void) | undefined;
  // Which of the three failed, for the start error's code.
  let step: 'SANDBOX' | 'PROXY' | 'VERBS' = 'SANDBOX';
  try {
    if (confined && job.sandbox?.confined === true) {
      // Inside, the proxy is the sandbox's own loopback port that its init bridges to model.sock.
      const envPatch = job.proxy ? { [job.proxy.urlEnv]: `http://127.0.0.1:${MODEL_BRIDGE_PORT}` } : {};
      confinement = prepareConfinement({ runId: job.runId, kanbanDir: job.kanbanDir, command, sandbox: job.sandbox }, { envPatch });
      command = confinement.command;
      void record({ sandbox: { confined: true, ...confinement.summary } });
      note(job.logFile, `sandbox: reads ${confinement.summary.reads.length} paths, writes ${confinement.summary.writes.join(', ')}; run folder ${confinement.runDir}`);
    }
    step = 'PROXY';
    if (job.proxy) {
      proxy = await startCredentialProxy({
        listen: confinement ? { socketPath: confinement.modelSocket } : { loopback: true },
        upstream: job.proxy.upstream,
        secrets: new Map(job.proxy.secrets.map(([k, v]) => [k, v] as const)),
        ...(job.proxy.prices ? { prices: job.proxy.prices } : {}),
        ...(job.proxy.budget ? { budget: job.proxy.budget } : {}),
        ...(job.proxy.dailyBudget ? { dailyBudget: job.proxy.dailyBudget } : {}),
        ledger: job.proxy.ledger,
        ...(job.sandbox?.confined === true && job.sandbox.declared.hosts.length > 0 ? { allowHosts: job.sandbox.declared.hosts } : {}),
        onOverBudget,
        onProblem: (message) => note(job.logFile, `credential proxy: ${message}`),
      });
      if (!confinement) command = { ...command, env: { ...command.env, [job.proxy.urlEnv]: proxy.url! } };
      note(job.logFile, `credential proxy for ${job.proxy.upstream} (${job.proxy.secrets.length} key${job.proxy.secrets.length === 1 ? '' : 's'} held outside the worker)`);
    }
    step = 'VERBS';
    if (confinement && job.sandbox?.confined === true) {
      verbs = await startVerbServer({
        socketPath: confinement.verbsSocket,
        run: { card: job.card, claim: job.claim, vault: job.sandbox.vault, configFile: job.sandbox.configFile, runId: job.runId, cause: job.provenance?.cause },
        boardCli: BOARD_CLI,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(process.env.HOME ? { HOME: process.env.HOME } : {}), ...(process.env.TZ ? { TZ: process.env.TZ } : {}) },
      });
    }
  } catch (error) {
    startProblem = { code: step, message: (error as Error).message };
  }
  const worker: StartedWorker = startProblem !== undefined ? notStarted(startProblem) : await runner.start(command, job.logFile);
  saidStarted();
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
  stopWorker = stop;
  if (overBudget !== undefined) stop('over-budget', overBudget);
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
  // The time budget counts from the worker's start, not from a submission: a Slurm job waiting in
  // its queue longer than the budget was otherwise cancelled before it ever ran, an attempt spent.
  let budget: NodeJS.Timeout | undefined;
  let gone = false;
  const submitted = Date.now();
  if (job.timeoutMs !== undefined) {
    const timeoutMs = job.timeoutMs;
    void worker.running.then(() => {
      if (gone) return;
      if (worker.state !== undefined) note(job.logFile, `job running after ${Math.round((Date.now() - submitted) / 1000)} s in the queue: its time budget of ${timeoutMs / 1000} s counts from now`);
      budget = setTimeout(() => stop('timed-out', `still running after its harness's timeout of ${timeoutMs / 1000} s`), timeoutMs);
    });
  }

  const exit = await worker.exited;
  gone = true;
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
  // Why it ended without closing, from its own output: the card's Record and `status` say it. A
  // worker the board stopped for its own reasons (a reclaim, a cancel, a yield or fail that
  // returned the card) did not fail; one stopped by its time budget did.
  const failed = !closed && !exit.startError && (stopped === undefined || stopped === 'timed-out');
  // Over budget: the proxy's own sentence is the reason (the worker only saw a refusal).
  const why =
    stopped === 'over-budget' && overBudget !== undefined
      ? { reason: overBudget.slice(0, 200) }
      : failed
        ? await failureReason(job.kanbanDir, job.runId, job.logFile, privateValues(job, workerEnv))
        : {};
  const final: Partial<RunRecord> = {
    state: 'exited',
    end,
    exitCode: exit.exitCode,
    signal: exit.signal,
    ended: stopped ? 'stopped' : closed ? 'closed' : 'exited',
    ...(stopped ? { stopped } : {}),
    ...(exit.startError ? { startError: exit.startError, error: exit.startError.message } : {}),
    ...(exit.jobState !== undefined ? { jobState: exit.jobState } : {}),
    // Measured by the proxy, response by response: not parsed from what the worker printed.
    ...(proxy ? { usage: proxy.usage() } : {}),
    ...why,
  };
  await record(final);
  await recordProvenance(job, base, { ...current, ...final });
  // Whatever the worker left behind in its group (a daemon it forked, a grandchild) goes too.
  await worker.stop(STOP_GRACE_MS);
  await verbs?.close().catch((error: Error) => note(job.logFile, `could not close the verb server: ${error.message}`));
  await proxy?.close().catch((error: Error) => note(job.logFile, `could not close the credential proxy: ${error.message}`));
  try {
    confinement?.close();
  } catch (error) {
    note(job.logFile, `could not remove the run's sandbox folders: ${(error as Error).message}`);
  }
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
        ...(done.usage ? { usage: done.usage } : {}),
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
      data: {
        exit_code: done.exitCode ?? null,
        tokens: done.usage ? done.usage.input_tokens + done.usage.output_tokens : cost?.tokens,
        usd: done.usage?.usd ?? cost?.usd,
      },
    });
  } catch (error) {
    note(job.logFile, `could not record the run's provenance: ${(error as Error).message}`);
  }
}

/**
 * The private values this supervisor holds (the keys its run's proxy adds, and any the worker's
 * environment still carries): scrubbed from what it records.
 */
function privateValues(job: RunJob, workerEnv: NodeJS.ProcessEnv): string[] {
  const fromEnv = job.command.privateNames.flatMap((name) => [job.command.env[name], workerEnv[name]]);
  const fromProxy = (job.proxy?.secrets ?? []).map(([, value]) => value);
  return [...fromEnv, ...fromProxy].filter((v): v is string => typeof v === 'string' && v !== '' && !v.startsWith('board-placeholder-'));
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
