#!/usr/bin/env node
/**
 * The first process inside a worker's sandbox (built as dist/sandbox-init.js):
 *
 *   sandbox-init --bridge PORT=SOCKET [--bridge …] -- COMMAND [ARGS…]
 *
 * The sandbox has no network but its own loopback, and apply-seccomp forbids the worker to create
 * Unix sockets; so this process, which runs before the filter, listens on 127.0.0.1:PORT for each
 * bridge and pipes every connection to the Unix socket (the run's proxy, its verb server) bound
 * read-only at /run/board. Once every bridge listens it spawns the command (stdio and environment
 * inherited), forwards SIGTERM/SIGINT/SIGHUP to it, and exits as it did (its code, or its signal
 * raised again). Node built-ins only: nothing of the board is loaded in here.
 *
 * A worker that could not be started at all (apply-seccomp's exec failed: no such program, a
 * missing interpreter, no permission) is reported to the supervisor on fd 3, a pipe the runner
 * opened for this alone (`{"startError":{"code","message"}}`): the supervisor records a start
 * error, which spends no attempt, instead of a worker that exited. The worker gets an fd 3 of its
 * own (a pipe nobody reads), never this one, so it cannot forge the report.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { parseInitArgs, type Bridge } from './init-args.js';

function usage(message: string): never {
  process.stderr.write(`sandbox-init: ${message}\nusage: sandbox-init --bridge PORT=SOCKET … -- COMMAND [ARGS…]\n`);
  process.exit(2);
}

function listen(bridge: Bridge): Promise<net.Server> {
  const server = net.createServer((inside) => {
    const outside = net.connect(bridge.socket);
    inside.pipe(outside).pipe(inside);
    // Either side ending or failing ends both: a refused socket closes the worker's connection.
    inside.on('error', () => outside.destroy());
    outside.on('error', () => inside.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(bridge.port, '127.0.0.1', () => resolve(server));
  });
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseInitArgs>;
  try {
    parsed = parseInitArgs(process.argv.slice(2));
  } catch (error) {
    usage((error as Error).message);
  }
  const servers = await Promise.all(parsed.bridges.map(listen)).catch((error: Error) => usage(`cannot listen: ${error.message}`));
  const [file, ...args] = parsed.command;
  // stderr passes through here so that apply-seccomp's own word on a failed exec can be read; fd 3
  // is a fresh pipe in the child, so the supervisor's status pipe never reaches the worker.
  const child = spawn(file!, args, { stdio: ['inherit', 'inherit', 'pipe', 'pipe'] });
  let head = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (head.length < 512) head += chunk.toString('utf8');
    process.stderr.write(chunk);
  });
  child.stdio[3]?.on('error', () => undefined);
  (child.stdio[3] as NodeJS.ReadableStream | null)?.resume();
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, forward(signal));
  child.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`sandbox-init: cannot start ${file}: ${error.message}\n`);
    reportStartError(error.code ?? 'ERROR', `cannot start ${file}: ${error.message}`);
    process.exit(127);
  });
  const stderrEnded = new Promise<void>((resolve) => child.stderr!.once('end', resolve));
  child.once('exit', async (code, signal) => {
    // apply-seccomp's word may still be on its way; a daemon keeping stderr open delays us 0.2 s at most.
    await Promise.race([stderrEnded, new Promise((r) => setTimeout(r, 200))]);
    for (const s of servers) s.close();
    const failedExec = /^apply-seccomp: execvp: (.+)$/m.exec(head);
    if (code === 1 && failedExec && head.startsWith('apply-seccomp: execvp:')) {
      reportStartError(ERRNO_OF[failedExec[1]!.trim()] ?? 'EXEC', `cannot start ${parsed.command[1] ?? file}: ${failedExec[1]!.trim()}`);
    }
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

/** strerror → errno name, for the messages apply-seccomp's execvp gives. */
const ERRNO_OF: Readonly<Record<string, string>> = {
  'No such file or directory': 'ENOENT',
  'Permission denied': 'EACCES',
  'Exec format error': 'ENOEXEC',
  'Not a directory': 'ENOTDIR',
  'Text file busy': 'ETXTBSY',
};

/** One line on fd 3, when the runner opened it (a pipe: libuv makes it a socket pair); nothing otherwise. */
function reportStartError(code: string, message: string): void {
  try {
    const fd3 = fs.fstatSync(3);
    if (!fd3.isFIFO() && !fd3.isSocket()) return;
    fs.writeSync(3, `${JSON.stringify({ startError: { code, message } })}\n`);
  } catch {
    // No status pipe: the exit code says it ended.
  }
}

void main();
