import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBoardFile, readBoardFileSync } from '../../src/vault/board-file.js';
import { ensureFolder, ensureFolderSync, inFolder, removeFile, removeFileSync } from '../../src/vault/file-ops.js';

/**
 * Over a network mount with caching off (a shared board), every system call on a board file is a
 * round trip to the server. These pin the calls the board's most frequent file operations make,
 * counted by strace in a real process running the built modules, and that what they do is unchanged.
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const BUILT = (file: string) => path.join(REPO, 'dist/vault', file);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-file-ops-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const haveStrace = spawnSync('strace', ['-V']).status === 0;
if (!haveStrace) console.warn('*** strace is not installed: the system-call counts of test/vault/file-ops.test.ts SKIP (apt-get install strace) ***');

/** The system calls a Node process makes on `traced` while it runs `body` (an ES module body). */
function callsOn(traced: string, body: string): Map<string, number> {
  const script = path.join(dir, `script-${Math.random().toString(16).slice(2)}.mjs`);
  fs.writeFileSync(script, body);
  const r = spawnSync('strace', ['-f', '-qq', '-P', traced, '-e', 'trace=%file,%desc', process.execPath, script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const counts = new Map<string, number>();
  for (const line of r.stderr.split('\n')) {
    const name = /^(?:\[pid\s+\d+\] )?(\w+)\(/.exec(line)?.[1];
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

const sum = (counts: Map<string, number>, names: string[]) => names.reduce((n, k) => n + (counts.get(k) ?? 0), 0);
const FSTAT = ['fstat', 'newfstatat', 'statx', 'lstat', 'stat'];

describe('board files are read, folders made and files removed in as few system calls as they can be', () => {
  it.runIf(haveStrace)('a board file: one open, one fstat, one read, one close (async and blocking)', () => {
    const file = path.join(dir, 'owner.json');
    fs.writeFileSync(file, `${JSON.stringify({ token: 't'.repeat(300) })}\n`);
    for (const call of ['await readBoardFile(file)', 'readBoardFileSync(file)']) {
      const counts = callsOn(file, `import { readBoardFile, readBoardFileSync } from ${JSON.stringify(BUILT('board-file.js'))};\nconst file = ${JSON.stringify(file)};\nconst b = ${call};\nif (b.length !== ${fs.statSync(file).size}) process.exit(3);\n`);
      expect(sum(counts, ['open', 'openat']), call).toBe(1);
      expect(sum(counts, FSTAT), call).toBe(1);
      expect(sum(counts, ['read', 'pread64']), call).toBe(1);
      expect(counts.get('close'), call).toBe(1);
    }
  });

  it.runIf(haveStrace)('a folder that exists: one mkdir; a file removed: one unlink', () => {
    const folder = path.join(dir, 'there');
    fs.mkdirSync(folder);
    const folderCalls = callsOn(folder, `import { ensureFolder, ensureFolderSync } from ${JSON.stringify(BUILT('file-ops.js'))};\nawait ensureFolder(${JSON.stringify(folder)});\nensureFolderSync(${JSON.stringify(folder)});\n`);
    expect(folderCalls.get('mkdir')).toBe(2);
    expect(sum(folderCalls, FSTAT)).toBe(0);
    const file = path.join(dir, 'temp');
    fs.writeFileSync(file, 'x');
    const removeCalls = callsOn(file, `import { removeFile } from ${JSON.stringify(BUILT('file-ops.js'))};\nawait removeFile(${JSON.stringify(file)});\nawait removeFile(${JSON.stringify(file)});\n`);
    expect(removeCalls.get('unlink')).toBe(2);
    expect(sum(removeCalls, FSTAT)).toBe(0);
  });

  it('reads every byte of files of every size, small to past the first read\'s 1 MiB', async () => {
    for (const size of [0, 1, 4095, 4096, 65_536, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 17]) {
      const file = path.join(dir, `size-${size}`);
      const bytes = Buffer.alloc(size, 0x61);
      if (size > 0) bytes[size - 1] = 0x62;
      fs.writeFileSync(file, bytes);
      expect((await readBoardFile(file)).equals(bytes), `${size} bytes`).toBe(true);
      expect(readBoardFileSync(file).equals(bytes), `${size} bytes, blocking`).toBe(true);
    }
  });

  it('makes a missing folder with its parents, leaves an existing one, and refuses a file in the way', async () => {
    const deep = path.join(dir, 'a', 'b', 'c');
    await ensureFolder(deep);
    expect(fs.statSync(deep).isDirectory()).toBe(true);
    await ensureFolder(deep);
    ensureFolderSync(path.join(dir, 'x', 'y'));
    expect(fs.statSync(path.join(dir, 'x', 'y')).isDirectory()).toBe(true);
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    // The folder is "there" as far as mkdir says; what follows fails on the file, naming its path.
    await ensureFolder(file);
    expect(() => fs.writeFileSync(path.join(file, 'inside'), '')).toThrow(/ENOTDIR/);
    await expect(ensureFolder(path.join(file, 'below'))).rejects.toThrow(/ENOTDIR/);
  });

  it('creates in a folder without a mkdir while it is there, and makes it (with parents) when it is not', async () => {
    let calls = 0;
    const write = (file: string) => () => {
      calls += 1;
      return fs.promises.writeFile(file, 'x', { flag: 'wx' });
    };
    const there = path.join(dir, 'in-folder-there');
    fs.mkdirSync(there);
    await inFolder(there, write(path.join(there, 'a')));
    expect(calls).toBe(1);
    const missing = path.join(dir, 'in-folder-missing', 'deeper');
    await inFolder(missing, write(path.join(missing, 'b')));
    expect(calls).toBe(3);
    expect(fs.readFileSync(path.join(missing, 'b'), 'utf8')).toBe('x');
    // Any other failure is the caller's, at once.
    await expect(inFolder(there, write(path.join(there, 'a')))).rejects.toThrow(/EEXIST/);
    expect(calls).toBe(4);
  });

  it('removes a file, says nothing of a missing one, and refuses a folder', async () => {
    const file = path.join(dir, 'gone-soon');
    fs.writeFileSync(file, '');
    await removeFile(file);
    expect(fs.existsSync(file)).toBe(false);
    await removeFile(file);
    removeFileSync(file);
    const folder = path.join(dir, 'a-folder');
    fs.mkdirSync(folder);
    await expect(removeFile(folder)).rejects.toThrow(/EISDIR|EPERM/);
    expect(() => removeFileSync(folder)).toThrow(/EISDIR|EPERM/);
    expect(fs.existsSync(folder)).toBe(true);
  });
});
