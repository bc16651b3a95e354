import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileExclusive, createFileExclusiveBlocking, isBoardTempName } from '../../src/vault/atomic-write.js';

/** The exclusive create, through Node's thread pool and with blocking calls (a supervisor's run record): one behaviour. */

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-atomic-write-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe.each([
  ['createFileExclusive', createFileExclusive],
  ['createFileExclusiveBlocking', createFileExclusiveBlocking],
])('%s', (_name, create) => {
  it('creates the file whole, once; a second create fails with EEXIST and leaves the first; no temp file is left', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'd-'));
    const target = path.join(dir, 'run.json');
    await create(target, '{"first":true}\n');
    expect(fs.readFileSync(target, 'utf8')).toBe('{"first":true}\n');
    expect(fs.statSync(target).mode & 0o777).toBe(0o644 & ~process.umask());
    await expect(create(target, '{"second":true}\n')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(target, 'utf8')).toBe('{"first":true}\n');
    expect(fs.readdirSync(dir)).toEqual(['run.json']);
  });

  it('fails in a folder that is not there, naming the path, and leaves nothing', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'd-'));
    const target = path.join(dir, 'missing', 'run.json');
    await expect(create(target, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(fs.readdirSync(dir).filter(isBoardTempName)).toEqual([]);
  });
});
