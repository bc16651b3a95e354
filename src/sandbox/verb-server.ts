import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { EXIT } from '../errors.js';
import { CAUSE_VAR } from '../journal/from-env.js';
import { checkVerb } from './verb-policy.js';

/**
 * The verbs channel (issue 18, item 4): a sandboxed worker cannot write `KANBAN/` or `logs/`, so
 * its `board card …` verbs are carried out here, by its supervisor, outside the sandbox. HTTP over
 * a Unix socket that the sandbox sees read-only (its init bridges a loopback port to it).
 *
 * `POST /verb` with `{ args: string[], stdin?: string }` answers `{ stdout, stderr, code }`. The
 * request chooses only the arguments, and only those verb-policy.ts allows; who is asking (the
 * card, its claim, the vault, the config, the run, the journal cause) is the run's, set here.
 */

export interface VerbRun {
  /** The card's absolute path in `in-progress/`, as the worker was given it (BOARD_CARD). */
  readonly card: string;
  /** The claim token (BOARD_CLAIM). */
  readonly claim: string;
  /** The vault's root (BOARD_VAULT). */
  readonly vault: string;
  /** The board's config file (BOARD_CONFIG): the verbs journal into its logs folder. */
  readonly configFile: string;
  /** The run id (BOARD_RUN). */
  readonly runId: string;
  /** The claim event's id: the cause of what the worker does (BOARD_CAUSE). */
  readonly cause?: string | undefined;
}

export interface VerbServerOptions {
  /** Where to listen; the folder must exist (the supervisor's 0700 socket folder). */
  readonly socketPath: string;
  readonly run: VerbRun;
  /** The board CLI the verbs run as (`dist/cli.cjs`, BOARD_CLI). */
  readonly boardCli: string;
  /** The supervisor's own environment, the base of each verb's (the run's variables replace any it has). */
  readonly env: NodeJS.ProcessEnv;
  /** A verb still running after this is killed (default 60 s). */
  readonly timeoutMs?: number;
  /** Bytes kept of each of stdout and stderr (default 1 MiB); the rest is dropped and said. */
  readonly maxOutputBytes?: number;
  /** Bytes accepted in a request body (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Verbs run at once; more wait their turn (default 2: each is a Node process). */
  readonly concurrency?: number;
}

export interface VerbServer {
  close(): Promise<void>;
}

/** What a verb answers, and what the thin client prints. */
export interface VerbAnswer {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

const MiB = 1024 * 1024;
/** Requests waiting for a turn beyond this are refused: a worker cannot queue without bound. */
const MAX_WAITING = 32;

/** The variables that say whose verb it is: never inherited, always the run's. */
const RUN_VARS = ['BOARD_CARD', 'BOARD_CLAIM', 'BOARD_VAULT', 'BOARD_CONFIG', 'BOARD_RUN', CAUSE_VAR, 'BOARD_BIN', 'BOARD_VERBS_URL', 'BOARD_LOGS'] as const;

export function verbEnv(base: NodeJS.ProcessEnv, run: VerbRun): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const key of RUN_VARS) delete env[key];
  env.BOARD_CARD = run.card;
  env.BOARD_CLAIM = run.claim;
  env.BOARD_VAULT = run.vault;
  env.BOARD_CONFIG = run.configFile;
  env.BOARD_RUN = run.runId;
  if (run.cause) env[CAUSE_VAR] = run.cause;
  return env;
}

export async function startVerbServer(options: VerbServerOptions): Promise<VerbServer> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxOutput = options.maxOutputBytes ?? MiB;
  const maxBody = options.maxBodyBytes ?? MiB;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const env = verbEnv(options.env, options.run);
  // The config's folder, never the vault: a verb looks for board.yml from its cwd up, and the
  // vault outside KANBAN/ is the worker's to write.
  const cwd = path.dirname(path.resolve(options.run.configFile));
  const children = new Set<ReturnType<typeof spawn>>();
  let running = 0;
  const waiting: (() => void)[] = [];
  let closed = false;

  const turn = async (): Promise<boolean> => {
    if (running < concurrency) {
      running++;
      return true;
    }
    if (waiting.length >= MAX_WAITING) return false;
    await new Promise<void>((resolve) => waiting.push(resolve));
    return true;
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  const runVerb = (args: readonly string[], stdin: string | undefined): Promise<VerbAnswer> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [options.boardCli, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
      children.add(child);
      const out = boundedSink(maxOutput);
      const err = boundedSink(maxOutput);
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.stdin.on('error', () => undefined);
      child.stdin.end(stdin ?? '');
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      let spawnError: Error | undefined;
      child.on('error', (error) => {
        spawnError = error;
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        const notes: string[] = [];
        if (out.dropped > 0) notes.push(`board: the verb's output was cut at ${maxOutput} bytes (${out.dropped} more dropped)`);
        if (err.dropped > 0) notes.push(`board: the verb's error output was cut at ${maxOutput} bytes (${err.dropped} more dropped)`);
        if (timedOut) notes.push(`board: the verb ran longer than ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`} and was stopped`);
        else if (spawnError) notes.push(`board: the verb could not be started: ${spawnError.message}`);
        else if (signal) notes.push(`board: the verb was stopped by ${signal}`);
        const stderr = err.text() + notes.map((n) => `${n}\n`).join('');
        resolve({ stdout: out.text(), stderr, code: code ?? EXIT.failure });
      });
    });

  const server = http.createServer((req, res) => {
    const answer = (status: number, body: VerbAnswer) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const refuse = (status: number, reason: string, code: number = EXIT.usage) => answer(status, { stdout: '', stderr: `board: ${reason}\n`, code });
    if (req.method !== 'POST' || req.url !== '/verb') {
      req.resume();
      refuse(404, 'the verbs channel answers POST /verb only');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBody) {
        over = true;
        chunks.length = 0;
        refuse(413, `a verb request is at most ${maxBody} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      void (async () => {
        const request = parseRequest(Buffer.concat(chunks).toString('utf8'));
        if (typeof request === 'string') return refuse(400, request);
        const verdict = checkVerb(request.args, options.run.card);
        if (!verdict.ok) return refuse(200, `refused by the verbs channel: ${verdict.reason}`);
        if (closed) return refuse(503, 'the verbs channel is closing: the run is over', EXIT.failure);
        if (!(await turn())) return refuse(503, 'too many verbs waiting at once; try again', EXIT.failure);
        try {
          answer(200, await runVerb(request.args, request.stdin));
        } finally {
          release();
        }
      })().catch((error: Error) => refuse(500, `the verbs channel failed: ${error.message}`, EXIT.failure));
    });
    req.on('error', () => undefined);
  });
  server.requestTimeout = timeoutMs + 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    async close() {
      closed = true;
      for (const child of children) child.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `{ args: string[], stdin?: string }`, or the sentence saying what is wrong with it. */
function parseRequest(body: string): { args: string[]; stdin?: string } | string {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return 'a verb request is JSON: { "args": [..], "stdin"?: ".." }';
  }
  if (typeof data !== 'object' || data === null) return 'a verb request is a JSON object: { "args": [..] }';
  const { args, stdin } = data as { args?: unknown; stdin?: unknown };
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === 'string')) return 'a verb request\'s "args" is a list of strings';
  if (stdin !== undefined && typeof stdin !== 'string') return 'a verb request\'s "stdin" is a string';
  // A NUL cannot be in an argument (spawn would throw); say so instead.
  if (args.some((a) => a.includes('\0'))) return 'an argument holds a NUL character';
  return stdin === undefined ? { args } : { args, stdin };
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
function boundedSink(limit: number): { push(chunk: Buffer): void; text(): string; readonly dropped: number } {
  const kept: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    push(chunk) {
      const room = limit - size;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      kept.push(part);
      size += part.length;
      dropped += chunk.length - part.length;
    },
    text: () => Buffer.concat(kept).toString('utf8'),
    get dropped() {
      return dropped;
    },
  };
}
