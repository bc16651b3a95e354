import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ComposedCommand } from '../core/compose.js';
import { SANDBOX_INIT_SCRIPT, WORKER_BOARD_SCRIPT } from '../entry-points.js';
import type { SandboxDeclared } from '../schema/harness.js';
import { hostFacts } from './host.js';
import { bwrapArgs, MODEL_BRIDGE_PORT, policySummary, SANDBOX_APPLY_SECCOMP, SANDBOX_BOARD_DIR, sandboxPolicy, VERBS_BRIDGE_PORT, type SandboxSummary } from './policy.js';
import { sandboxProbe, type SandboxProbe } from './probe.js';

/**
 * A run's sandbox, made by its supervisor just before the worker starts: the run folder (the
 * worker's HOME and TMPDIR), the socket dir its bridges lead to, and the bwrap command that runs
 * the worker confined. `close()` removes both folders once the worker is gone.
 */

/** What a sandboxed run's job carries (set by dispatch for a confined harness: src/sandbox/mode.ts). */
export interface RunSandbox {
  readonly confined: true;
  /** The harness's widening, substituted and validated (src/sandbox/declared.ts). */
  readonly declared: SandboxDeclared;
  readonly vault: string;
  readonly harnessesDir: string;
  readonly configFile: string;
  readonly privateEnvFile?: string;
  readonly logsDir: string;
}

/** A run's sandbox as its job says: confined (with what), or why not. */
export type JobSandbox = RunSandbox | { readonly confined: false; readonly why: 'none' | 'slurm' };

export interface ConfinementJob {
  readonly runId: string;
  readonly kanbanDir: string;
  readonly command: ComposedCommand;
  readonly sandbox: RunSandbox;
}

export interface Confinement {
  /** What the runner starts: bwrap, whose argument list holds the worker's whole environment. */
  readonly command: ComposedCommand;
  readonly runDir: string;
  readonly socketDir: string;
  /** Where the run's credential proxy listens (bridged to 127.0.0.1:MODEL_BRIDGE_PORT inside). */
  readonly modelSocket: string;
  /** Where the run's verb server listens (bridged to 127.0.0.1:VERBS_BRIDGE_PORT inside). */
  readonly verbsSocket: string;
  /** What the sandbox changed in the worker's environment (HOME, TMPDIR, BOARD_VERBS_URL, BOARD_SANDBOX). */
  readonly workerEnvPatch: Readonly<Record<string, string>>;
  readonly summary: SandboxSummary;
  close(): void;
}

export class SandboxStartError extends Error {}

/** Variables the worker never gets inside: the config file is masked in there anyway. */
const WITHHELD = ['BOARD_CONFIG'];

/** Folder names a run leaves in the temp folder; ids are file-name safe already, this keeps them short. */
function slug(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
}

export interface ConfinementOptions {
  /** Where the run and socket folders go (default: the temp folder). */
  readonly tmpDir?: string;
  readonly probe?: () => SandboxProbe;
  /** dist/sandbox-init.js (tests running from the sources give the built one); its folder is bound read-only. */
  readonly initScript?: string;
  /** dist/worker-board.js, copied in as the worker's `board` (default: beside the init script). */
  readonly workerBoard?: string;
  /**
   * Variables the worker sees that depend on the sandbox (the model endpoint's URL: the proxy's
   * bridge port inside); set before the command is made, since bwrap carries the environment.
   */
  readonly envPatch?: Readonly<Record<string, string>>;
}

/** Where the worker finds its `board`: the thin client, in the read-only socket dir. */
export const SANDBOX_BOARD_BIN = `${SANDBOX_BOARD_DIR}/bin/board`;

export function prepareConfinement(job: ConfinementJob, options: ConfinementOptions = {}): Confinement {
  const initScript = options.initScript ?? SANDBOX_INIT_SCRIPT;
  const probed = (options.probe ?? sandboxProbe)();
  if (!probed.ok) throw new SandboxStartError(`sandbox cannot start: ${probed.reason}`);
  const tmp = options.tmpDir ?? os.tmpdir();
  const runDir = fs.mkdtempSync(path.join(tmp, `board-run-${slug(job.runId)}-`));
  let socketDir: string | undefined;
  try {
    fs.chmodSync(runDir, 0o700);
    const home = path.join(runDir, 'home');
    const workerTmp = path.join(runDir, 'tmp');
    fs.mkdirSync(home, { mode: 0o700 });
    fs.mkdirSync(workerTmp, { mode: 0o700 });
    // Short: a Unix socket's path holds at most ~108 bytes, and a run id can be long.
    socketDir = fs.mkdtempSync(path.join(tmp, `board-sock-${createHash('sha1').update(job.runId).digest('hex').slice(0, 10)}-`));
    fs.chmodSync(socketDir, 0o700);
    // The mount point of apply-seccomp: the socket dir is bound read-only, so bubblewrap could not
    // create it in there.
    fs.writeFileSync(path.join(socketDir, path.basename(SANDBOX_APPLY_SECCOMP)), '', { mode: 0o600 });
    // The worker's `board`: a copy of the thin client (a few KB), so that nothing of the board's
    // but what the policy binds is needed inside, and the worker cannot change it (read-only).
    const workerBoard = options.workerBoard ?? path.join(path.dirname(initScript), path.basename(WORKER_BOARD_SCRIPT));
    fs.mkdirSync(path.join(socketDir, 'bin'), { mode: 0o755 });
    fs.copyFileSync(workerBoard, path.join(socketDir, 'bin', 'board'));
    fs.chmodSync(path.join(socketDir, 'bin', 'board'), 0o755);

    // BOARD_SANDBOX tells a wrapper it runs confined (the Codex wrapper then turns Codex's own
    // bubblewrap sandbox off: it cannot nest under the seccomp filter). The worker's `board` is the
    // thin client, first on its PATH.
    const workerPathOutside = job.command.env.PATH ?? '/usr/bin:/bin';
    const workerEnvPatch = {
      ...options.envPatch,
      HOME: home,
      TMPDIR: workerTmp,
      BOARD_VERBS_URL: `http://127.0.0.1:${VERBS_BRIDGE_PORT}`,
      BOARD_SANDBOX: 'bwrap',
      BOARD_BIN: SANDBOX_BOARD_BIN,
      PATH: `${path.dirname(SANDBOX_BOARD_BIN)}:${workerPathOutside}`,
    };
    const env: Record<string, string> = { ...job.command.env, ...workerEnvPatch };
    for (const key of WITHHELD) delete env[key];
    // The PATH folders bound are the harness's own; /run/board/bin is the socket dir's.
    const workerPath = workerPathOutside;
    const s = job.sandbox;
    const policy = sandboxPolicy({
      declared: s.declared,
      vault: s.vault,
      kanban: job.kanbanDir,
      harnessesDir: s.harnessesDir,
      boardDist: path.dirname(initScript),
      node: process.execPath,
      workerPath,
      ...(process.env.HOME ? { boardHome: process.env.HOME } : {}),
      runDir,
      socketDir,
      applySeccomp: probed.applySeccomp,
      host: hostFacts(workerPath, { configFile: s.configFile, privateEnvFile: s.privateEnvFile, logsDir: s.logsDir }),
    });
    const inner = [
      initScript,
      '--bridge',
      `${MODEL_BRIDGE_PORT}=${SANDBOX_BOARD_DIR}/model.sock`,
      '--bridge',
      `${VERBS_BRIDGE_PORT}=${SANDBOX_BOARD_DIR}/verbs.sock`,
      '--',
      SANDBOX_APPLY_SECCOMP,
      job.command.file,
      ...job.command.args,
    ];
    const args = bwrapArgs(policy, { file: process.execPath, args: inner, cwd: job.command.cwd }, env);
    const made = socketDir;
    return {
      command: { ...job.command, file: probed.bwrap, args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd: runDir, statusPipe: true },
      runDir,
      socketDir,
      modelSocket: path.join(socketDir, 'model.sock'),
      verbsSocket: path.join(socketDir, 'verbs.sock'),
      workerEnvPatch,
      summary: policySummary(policy),
      close() {
        fs.rmSync(runDir, { recursive: true, force: true });
        fs.rmSync(made, { recursive: true, force: true });
      },
    };
  } catch (error) {
    fs.rmSync(runDir, { recursive: true, force: true });
    if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
}
