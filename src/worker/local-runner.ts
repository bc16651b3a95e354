import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { ComposedCommand } from '../core/compose.js';
import { openBoardAppendSync } from '../vault/board-file.js';
import { notStarted, type StartedWorker, type WorkerExit, type WorkerRunner } from './runner.js';

/**
 * Whether any live process of the group is left. Where /proc exists, a zombie (dead, not yet
 * reaped by its new parent) does not count: it runs nothing, and waiting for an init that never
 * reaps it would hold every stop for its whole grace. Elsewhere, kill(-pgid, 0) (EPERM: it
 * exists, owned by someone else).
 */
export function groupAlive(pgid: number): boolean {
  let entries: string[] | undefined;
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    entries = undefined;
  }
  if (entries !== undefined) {
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already.
  }
}

/**
 * The worker as a local process group: started detached, which makes it the leader of a group of
 * its own (pgid = its pid), so a stop reaches every process it started, not only the first (a
 * shell wrapper's grandchildren would otherwise outlive it).
 */
export function localRunner(): WorkerRunner {
  return {
    start(command: ComposedCommand, logFile: string): Promise<StartedWorker> {
      // The worker's output goes only into a regular file of the board's, never through a link
      // or into a FIFO planted at its name: such a worker is not started, and that is said.
      let out: number;
      try {
        out = openBoardAppendSync(logFile);
      } catch (error) {
        const startError = { code: (error as NodeJS.ErrnoException).code ?? 'ELOG', message: `its log: ${(error as Error).message}` };
        return Promise.resolve(notStarted(startError));
      }
      return new Promise((resolve) => {
        const child = spawn(command.file, [...command.args], {
          cwd: command.cwd,
          env: { ...command.env },
          stdio: command.statusPipe ? ['ignore', out, out, 'pipe'] : ['ignore', out, out],
          detached: true,
          shell: false,
        });
        // The sandbox's init says on fd 3 when the worker itself could not be executed.
        let report = '';
        const status = command.statusPipe ? (child.stdio[3] as NodeJS.ReadableStream | null) : null;
        status?.on('data', (chunk: Buffer) => {
          if (report.length < 4096) report += chunk.toString('utf8');
        });
        status?.on('error', () => undefined);
        const statusEnded = status ? new Promise<void>((r) => status.once('end', () => r()).once('close', () => r())) : Promise.resolve();
        const startErrorReported = (): WorkerExit['startError'] => {
          for (const line of report.split('\n')) {
            try {
              const parsed = JSON.parse(line) as { startError?: { code?: unknown; message?: unknown } };
              const e = parsed.startError;
              if (e && typeof e.code === 'string' && typeof e.message === 'string') return { code: e.code.slice(0, 40), message: e.message.slice(0, 500) };
            } catch {
              // Not a report line.
            }
          }
          return undefined;
        };
        let settle!: (exit: WorkerExit) => void;
        const exited = new Promise<WorkerExit>((r) => (settle = r));
        let stopping: Promise<void> | undefined;
        const stop = (graceMs: number): Promise<void> => {
          const pgid = child.pid;
          if (pgid === undefined || !groupAlive(pgid)) return Promise.resolve();
          if (stopping) return stopping;
          signalGroup(pgid, 'SIGTERM');
          stopping = new Promise<void>((done) => {
            const started = Date.now();
            const poll = setInterval(() => {
              if (!groupAlive(pgid)) {
                clearInterval(poll);
                done();
              } else if (Date.now() - started >= graceMs) {
                clearInterval(poll);
                signalGroup(pgid, 'SIGKILL');
                done();
              }
            }, 100);
          }).finally(() => {
            stopping = undefined;
          });
          return stopping;
        };
        child.once('error', (error: NodeJS.ErrnoException) => {
          fs.closeSync(out);
          const startError = { code: error.code ?? 'ERROR', message: error.message };
          settle({ exitCode: null, signal: null, startError });
          resolve({ facts: {}, exited, running: Promise.resolve(), stop: () => Promise.resolve() });
        });
        child.once('spawn', () => {
          fs.closeSync(out);
          child.once('exit', (code, signal) => {
            // The start report may trail the exit by a moment: wait for its pipe's end, 500 ms at
            // most. The timer is cleared, not left to run out: a pending timer kept every
            // supervisor alive half a second after its run was recorded.
            let timer: NodeJS.Timeout | undefined;
            const reported = status ? Promise.race([statusEnded, new Promise<void>((r) => (timer = setTimeout(r, 500)))]) : statusEnded;
            void reported.then(() => {
              clearTimeout(timer);
              const startError = startErrorReported();
              settle(startError ? { exitCode: null, signal: null, startError } : { exitCode: code, signal });
            });
          });
          // A local process runs from its spawn on.
          resolve({ facts: child.pid !== undefined ? { workerPid: child.pid } : {}, exited, running: Promise.resolve(), stop });
        });
      });
    },
  };
}
