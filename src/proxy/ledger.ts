import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { localDate } from '../core/time.js';
import type { Spent } from './budget.js';
import { ensureFolder } from '../vault/file-ops.js';

/**
 * The daily spend ledger: `<logs>/spend/<YYYY-MM-DD>.ndjson` (local date), one line per metered
 * response of any run. Append-only, one write(2) per line on an O_APPEND descriptor, so every
 * run's proxy appends without a lock; opened without following links and without blocking on a
 * FIFO, and only ever a regular file.
 */

export interface SpendLine {
  readonly run: string;
  readonly card: string;
  readonly model?: string;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly usd?: number;
  readonly at: string;
}

export function spendDir(logsDir: string): string {
  return path.join(logsDir, 'spend');
}

export function spendFile(logsDir: string, date: string): string {
  return path.join(spendDir(logsDir), `${date}.ndjson`);
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function notAFile(file: string): Error {
  return new Error(`${file}: not a regular file (the spend ledger is the board's own file; remove what is there)`);
}

export async function appendSpend(logsDir: string, line: SpendLine, now: Date): Promise<void> {
  await ensureFolder(spendDir(logsDir));
  const file = spendFile(logsDir, localDate(now));
  const handle = await fs.open(file, APPEND, 0o600);
  try {
    if (!(await handle.stat()).isFile()) throw notAFile(file);
    const bytes = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length, null);
    if (bytesWritten !== bytes.length) throw new Error(`short write to ${file}: ${bytesWritten} of ${bytes.length} bytes`);
  } finally {
    await handle.close();
  }
}

export interface DaySpend extends Spent {
  readonly responses: number;
}

/** Add the complete lines of `text` to a day's sum; malformed lines count for nothing. */
export function sumSpendLines(text: string, into: DaySpend = { responses: 0, tokens: 0, usd: 0 }): DaySpend {
  let { responses, tokens, usd } = into;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as Partial<SpendLine>;
      const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
      responses += 1;
      tokens += n(entry.input_tokens) + n(entry.output_tokens);
      usd += n(entry.usd);
    } catch {
      // A torn or foreign line: skipped.
    }
  }
  return { responses, tokens, usd };
}

/**
 * A day's total, read incrementally: each call reads only what was appended since the last one
 * (complete lines only), and starts over when the local date changes.
 */
export class DailySpend {
  private date = '';
  private offset = 0;
  private sum: DaySpend = { responses: 0, tokens: 0, usd: 0 };

  constructor(private readonly logsDir: string) {}

  async total(now: Date): Promise<DaySpend> {
    const date = localDate(now);
    if (date !== this.date) {
      this.date = date;
      this.offset = 0;
      this.sum = { responses: 0, tokens: 0, usd: 0 };
    }
    const file = spendFile(this.logsDir, date);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, READ);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.sum;
      throw error;
    }
    try {
      const { size, isFile } = await handle.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
      if (!isFile) throw notAFile(file);
      while (this.offset < size) {
        const length = Math.min(size - this.offset, 1024 * 1024);
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, this.offset);
        const complete = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
        if (complete === 0) break; // a line still being written (or longer than a read): next time
        this.sum = sumSpendLines(buffer.subarray(0, complete).toString('utf8'), this.sum);
        this.offset += complete;
      }
      return this.sum;
    } finally {
      await handle.close();
    }
  }
}

/** A day's total in one read (for `board cost`). */
export async function readDaySpend(logsDir: string, date: Date): Promise<DaySpend> {
  return new DailySpend(logsDir).total(date);
}
