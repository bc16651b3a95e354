import fs from 'node:fs';
import { failureTail, oneLine, TAIL_BYTES, type FailureTail } from '../core/failure-reason.js';
import { readRefusal } from '../vault/runs.js';

/** The supervisor's own lines in the run log (supervisor.ts `note`): not the worker's output. */
export const SUPERVISOR_NOTE = '[board supervisor ';

/** The last TAIL_BYTES of a file, and whether the read started mid-file. Never throws. */
function readEnd(file: string): { text: string; cut: boolean } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    const read = fs.readSync(fd, buffer, 0, buffer.length, start);
    return { text: buffer.subarray(0, read).toString('utf8'), cut: start > 0 };
  } catch {
    return { text: '', cut: false };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Why a run ended without closing its card, for its run record: the tail of its log (stdout and
 * stderr, the supervisor's notes left out) and one reason line. A `board card` verb the worker ran
 * and the board refused (recorded next to the run record, see `recordRefusal`) is the reason when
 * there is one: it is the board's own account, where the log holds only what the model printed.
 * `secrets` are the private values the supervisor holds: they never reach the record.
 */
export async function failureReason(kanbanDir: string, runId: string, logFile: string, secrets: readonly string[]): Promise<FailureTail> {
  const { text, cut } = readEnd(logFile);
  const found = failureTail(text, { secrets, cut, skip: (line) => line.startsWith(SUPERVISOR_NOTE) });
  const refusal = await readRefusal(kanbanDir, runId);
  if (!refusal) return found;
  const reason = failureTail(`board card ${refusal.verb} refused: ${refusal.message}`, { secrets }).reason;
  return { ...found, ...(reason !== undefined ? { reason: oneLine(reason) } : {}) };
}
