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
 */
import { spawn } from 'node:child_process';
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
  const child = spawn(file!, args, { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, forward(signal));
  child.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`sandbox-init: cannot start ${file}: ${error.message}\n`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    for (const s of servers) s.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

void main();
