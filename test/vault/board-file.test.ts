import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoardFileError, appendBoardFileSync, openBoardAppend, readBoardFile, readBoardFileSync } from '../../src/vault/board-file.js';
import { appendLine, openJournal, readJournalDir } from '../../src/journal/journal.js';
import { JournalLookup, dayFilesOf } from '../../src/journal/lookup.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'board-file-'));
const fifo = (file: string) => execFileSync('mkfifo', [file]);

/** A file outside the board that a planted link points at: it must never change. */
function target(dir: string): string {
  const file = path.join(dir, 'bashrc');
  fs.writeFileSync(file, 'export PS1=x\n');
  return file;
}

describe('the board opens its own files without following links or waiting on FIFOs', () => {
  it('refuses to append through a link, naming the file, and writes nothing through it', async () => {
    const dir = tmp();
    const outside = target(dir);
    const file = path.join(dir, 'day.ndjson');
    fs.symlinkSync(outside, file);
    await expect(appendLine(file, '{"x":1}\n')).rejects.toThrow(new BoardFileError(file, 'is a symbolic link'));
    expect(() => appendBoardFileSync(file, 'x\n')).toThrow(/day\.ndjson is a symbolic link/);
    // A dangling link is not followed to create its target either.
    const dangling = path.join(dir, 'dangling.ndjson');
    fs.symlinkSync(path.join(dir, 'created-through-link'), dangling);
    await expect(appendLine(dangling, 'x\n')).rejects.toThrow(/is a symbolic link/);
    expect(fs.existsSync(path.join(dir, 'created-through-link'))).toBe(false);
    expect(fs.readFileSync(outside, 'utf8')).toBe('export PS1=x\n');
  });

  it('refuses a FIFO at once, with or without a reader, for appends and reads', { timeout: 10_000 }, async () => {
    const dir = tmp();
    const file = path.join(dir, 'day.ndjson');
    fifo(file);
    await expect(appendLine(file, 'x\n')).rejects.toThrow(/day\.ndjson is a FIFO or a socket, not a regular file/);
    await expect(readBoardFile(file)).rejects.toThrow(/day\.ndjson is a FIFO, not a regular file/);
    expect(() => readBoardFileSync(file)).toThrow(/is a FIFO/);
    // Someone holding it open for reading: the open for writing succeeds, fstat refuses it.
    const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      await expect(openBoardAppend(file)).rejects.toThrow(/day\.ndjson is a FIFO, not a regular file/);
    } finally {
      fs.closeSync(reader);
    }
  });

  it('refuses a folder and a file over its bound; a missing file stays ENOENT', async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'folder'));
    await expect(readBoardFile(path.join(dir, 'folder'))).rejects.toThrow(/folder is a folder/);
    await expect(openBoardAppend(path.join(dir, 'folder'))).rejects.toThrow(/folder is a folder/);
    fs.writeFileSync(path.join(dir, 'big'), 'x'.repeat(100));
    await expect(readBoardFile(path.join(dir, 'big'), { maxBytes: 99 })).rejects.toThrow(/big is 100 bytes, more than the 99/);
    expect((await readBoardFile(path.join(dir, 'big'), { maxBytes: 100 })).length).toBe(100);
    await expect(readBoardFile(path.join(dir, 'none'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('the journal skips a linked or FIFO day file with a problem, and says so on append', { timeout: 10_000 }, async () => {
    const logs = tmp();
    const dir = path.join(logs, 'journal');
    fs.mkdirSync(dir);
    const outside = target(logs);
    fs.symlinkSync(outside, path.join(dir, '2026-12-01.ndjson'));
    fifo(path.join(dir, '2026-12-02.ndjson'));
    const errors: string[] = [];
    const journal = openJournal(logs, { onError: (error) => void errors.push(error.message) });
    await journal.append({ kind: 'tick:ran', actor: 'board', at: new Date('2026-12-01T10:00:00') });
    await journal.append({ kind: 'tick:ran', actor: 'board', at: new Date('2026-12-02T10:00:00') });
    await journal.append({ kind: 'tick:ran', actor: 'board', at: new Date('2026-12-03T10:00:00') });
    expect(errors).toEqual([expect.stringMatching(/2026-12-01\.ndjson is a symbolic link/), expect.stringMatching(/2026-12-02\.ndjson is a FIFO or a socket/)]);
    expect(fs.readFileSync(outside, 'utf8')).toBe('export PS1=x\n');

    const read = await readJournalDir(dir);
    expect(read.events.map((e) => e.at.slice(0, 10))).toEqual(['2026-12-03']);
    expect(read.problems.map((p) => path.basename(p.file))).toEqual(['2026-12-01.ndjson', '2026-12-02.ndjson']);

    const lookup = new JournalLookup(dayFilesOf(dir));
    expect(await lookup.anyBetween('tick:ran', new Date('2026-11-30T00:00:00'), new Date('2026-12-04T00:00:00'), { since: new Date('2026-11-01T00:00:00') })).toBe(true);
    expect(await lookup.earliestAt({ since: new Date('2026-11-01T00:00:00') })).toMatch(/^2026-12-03/);
    expect(lookup.problems.map((p) => p.reason)).toEqual([expect.stringMatching(/is a symbolic link/), expect.stringMatching(/is a FIFO/)]);
  });

  it('refuses a linked journal folder', async () => {
    const logs = tmp();
    const elsewhere = tmp();
    fs.symlinkSync(elsewhere, path.join(logs, 'journal'));
    const errors: string[] = [];
    await openJournal(logs, { onError: (error) => void errors.push(error.message) }).append({ kind: 'tick:ran', actor: 'board' });
    expect(errors).toEqual([expect.stringMatching(/journal is a symbolic link/)]);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
