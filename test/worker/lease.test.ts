import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepLease, leaseAge } from '../../src/worker/lease.js';
import { runFile } from '../../src/vault/runs.js';
import { waitFor } from '../helpers/wait.js';

function board(): { kanban: string; file: string } {
  const kanban = fs.mkdtempSync(path.join(os.tmpdir(), 'lease-'));
  fs.mkdirSync(path.join(kanban, '.runs'));
  const file = runFile(kanban, 'x.1.a0');
  fs.writeFileSync(file, '{"state":"started","leased":true}\n');
  return { kanban, file };
}

const HOUR_AGO = () => new Date(Date.now() - 3_600_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a run lease', () => {
  it("is the age of the run record's mtime", async () => {
    const { kanban, file } = board();
    fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    expect(await leaseAge(kanban, 'x.1.a0')).toBeGreaterThanOrEqual(3_600_000 - 1_000);
    expect(await leaseAge(kanban, 'missing.1.a0')).toBeUndefined();
  });

  it('is renewed while kept, and no longer once ended; the record itself is untouched', async () => {
    const { kanban, file } = board();
    fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    const errors: Error[] = [];
    const end = keepLease(kanban, 'x.1.a0', (error) => void errors.push(error), 20);
    await waitFor('the lease to be renewed', () => Date.now() - fs.statSync(file).mtimeMs < 60_000, 5_000);
    end();
    fs.utimesSync(file, HOUR_AGO(), HOUR_AGO());
    await sleep(150); // several renewal periods: none comes
    expect(await leaseAge(kanban, 'x.1.a0')).toBeGreaterThan(60_000);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"state":"started","leased":true}\n');
    expect(errors).toEqual([]);
  });

  it('reports a failed renewal once, not every period', async () => {
    const { kanban, file } = board();
    fs.rmSync(file);
    const errors: string[] = [];
    const end = keepLease(kanban, 'x.1.a0', (error) => void errors.push((error as NodeJS.ErrnoException).code ?? '?'), 10);
    await sleep(150);
    end();
    expect(errors).toEqual(['ENOENT']);
  });
});
