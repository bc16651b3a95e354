import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { overBudget, runBudget } from '../../src/proxy/budget.js';
import { appendSpend, DailySpend, readDaySpend, spendFile } from '../../src/proxy/ledger.js';

describe('budgets', () => {
  it.each([
    [undefined, undefined, undefined],
    [{ tokens: 100 }, undefined, { tokens: 100 }],
    [{ tokens: 100, usd: 2 }, { tokens: 50 }, { tokens: 50, usd: 2 }],
    [{ tokens: 50 }, { tokens: 100, usd: 1 }, { tokens: 50, usd: 1 }],
  ])('runBudget(%j, %j) = %j', (harness, profile, budget) => {
    expect(runBudget(harness, profile)).toEqual(budget);
  });

  it('is over when spending reaches a limit, and names it with the figures', () => {
    expect(overBudget('run', { tokens: 100 }, { tokens: 99, usd: 5 })).toBeUndefined();
    expect(overBudget('run', { tokens: 100 }, { tokens: 100, usd: 0 })).toMatchObject({ budget: 'run', limit: 'tokens', allowed: 100, spent: 100, reason: 'run budget of 100 tokens used up: 100 tokens spent this run' });
    expect(overBudget('daily', { usd: 1.5 }, { tokens: 0, usd: 1.75 })).toMatchObject({ budget: 'daily', limit: 'usd', reason: 'daily budget of $1.5 used up: $1.7500 spent today, across all runs' });
    expect(overBudget('daily', undefined, { tokens: 1e9, usd: 1e9 })).toBeUndefined();
  });
});

describe('spend ledger', () => {
  let logs: string;
  const now = new Date(2026, 11, 3, 12, 0, 0);
  beforeEach(async () => {
    logs = await fs.mkdtemp(path.join(os.tmpdir(), 'board-ledger-'));
  });
  afterEach(async () => {
    await fs.rm(logs, { recursive: true, force: true });
  });

  it('appends one line per response and sums a day incrementally', async () => {
    const daily = new DailySpend(logs);
    expect(await daily.total(now)).toEqual({ responses: 0, tokens: 0, usd: 0 });
    await appendSpend(logs, { run: 'r1', card: 'c', input_tokens: 10, output_tokens: 5, usd: 0.5, at: now.toISOString() }, now);
    expect(await daily.total(now)).toEqual({ responses: 1, tokens: 15, usd: 0.5 });
    await appendSpend(logs, { run: 'r2', card: 'd', input_tokens: 1, output_tokens: 1, at: now.toISOString() }, now);
    // A torn line (a writer mid-append) is not read until it is whole.
    await fs.appendFile(spendFile(logs, '2026-12-03'), '{"input_tokens":7');
    expect(await daily.total(now)).toEqual({ responses: 2, tokens: 17, usd: 0.5 });
    await fs.appendFile(spendFile(logs, '2026-12-03'), ',"output_tokens":3}\n');
    expect(await daily.total(now)).toEqual({ responses: 3, tokens: 27, usd: 0.5 });
    // Another day starts from nothing.
    expect(await daily.total(new Date(2026, 11, 4, 0, 0, 1))).toEqual({ responses: 0, tokens: 0, usd: 0 });
    expect(await readDaySpend(logs, now)).toEqual({ responses: 3, tokens: 27, usd: 0.5 });
    const text = await fs.readFile(spendFile(logs, '2026-12-03'), 'utf8');
    expect(text.split('\n')[0]).toBe(JSON.stringify({ run: 'r1', card: 'c', input_tokens: 10, output_tokens: 5, usd: 0.5, at: now.toISOString() }));
  });

  it('never follows a link, never blocks on a FIFO', async () => {
    await fs.mkdir(path.join(logs, 'spend'));
    const target = path.join(logs, 'target');
    await fs.writeFile(target, 'keep\n');
    await fs.symlink(target, spendFile(logs, '2026-12-03'));
    const line = { run: 'r', card: 'c', input_tokens: 1, output_tokens: 1, at: now.toISOString() };
    await expect(appendSpend(logs, line, now)).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(new DailySpend(logs).total(now)).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await fs.readFile(target, 'utf8')).toBe('keep\n');
    await fs.rm(spendFile(logs, '2026-12-03'));
    execFileSync('mkfifo', [spendFile(logs, '2026-12-03')]);
    await expect(appendSpend(logs, line, now)).rejects.toThrow(/ENXIO|not a regular file/);
    await expect(new DailySpend(logs).total(now)).rejects.toThrow(/not a regular file/);
  });
});
