import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCardText, type Unreadable } from '../../src/vault/card-bytes.js';
import { READ_AHEAD_MIN_FILES, READ_AHEAD_MIN_FILES_NETWORK, READER_THREADS_NETWORK, readerThreads, readEach, ReadList } from '../../src/vault/read-ahead.js';

/**
 * The census's reader thread (src/vault/read-ahead.ts, src/census-reader.ts) must hand over, for
 * every file, exactly what the main thread's own read gives: the same text, or the same reason.
 * Run against the built thread script (`npm run build` first, as `npm test` does).
 */

const REPO = path.resolve(import.meta.dirname, '../..');
const BUILT_READER = path.join(REPO, 'dist/census-reader.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-read-ahead-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CARD = (i: number) => `---\nfunction: write\nrequest: draft ${i}\ncreated: 2026-12-01\norigin: human\n---\nbody ${i}\n`;

/** Many plain cards with every odd thing a folder can hold among them, listed as the census lists them, and a second folder. */
function hostileFolder(): ReadList {
  const folder = fs.mkdtempSync(path.join(dir, 'cards-'));
  const at = (name: string) => path.join(folder, name);
  for (let i = 0; i < 1500; i++) fs.writeFileSync(at(`card-${String(i).padStart(5, '0')}.md`), CARD(i));
  fs.symlinkSync(at('card-00001.md'), at('a-link.md'));
  fs.symlinkSync(at('nowhere.md'), at('a-dangling-link.md'));
  fs.mkdirSync(at('a-folder.md'));
  execFileSync('mkfifo', [at('a-fifo.md')]);
  fs.writeFileSync(at('an-empty.md'), '');
  fs.writeFileSync(at('crlf.md'), CARD(1).replace(/\n/g, '\r\n'));
  // Invalid UTF-8 and a NUL: decoded, as the main thread decodes them, into replacement characters.
  fs.writeFileSync(at('binary.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x0a]));
  fs.writeFileSync(at('big.md'), `${CARD(2)}${'x'.repeat(300_000)}\n`);
  fs.writeFileSync(at('utf8-é.md'), CARD(3).replace('draft', 'brouillon é ü 日本'));
  const entries = fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  // Listed, then gone before it is read; and one the listing did not type.
  const names = [...entries.map((e) => e.name), 'gone.md', 'card-00002.md'];
  const seenAsFiles = new Set([...entries.filter((e) => e.isFile()).map((e) => e.name), 'gone.md']);
  // An empty folder between, and files one level down (as profiles are read).
  const profiles = fs.mkdtempSync(path.join(dir, 'agents-'));
  for (let i = 0; i < 40; i++) {
    fs.mkdirSync(path.join(profiles, `p${i}`));
    if (i !== 7) fs.writeFileSync(path.join(profiles, `p${i}`, 'PROFILE.md'), `---\nname: p${i}\n---\n`);
  }
  return new ReadList([
    { folder, names, seenAsFiles },
    { folder: path.join(dir, 'none'), names: [] },
    { folder: profiles, names: Array.from({ length: 40 }, (_, i) => `p${i}/PROFILE.md`) },
  ]);
}

function expectedOf(files: ReadList): (string | Unreadable)[] {
  return Array.from({ length: files.length }, (_, i) => readCardText(files.absolute(i), files.seenAsFile(i)));
}

/** What `readEach` hands over, by index; each file must come exactly once. */
async function collect(files: ReadList, options: Parameters<typeof readEach>[2]): Promise<(string | Unreadable)[]> {
  const out = new Array<string | Unreadable>(files.length);
  const times = new Uint8Array(files.length);
  await readEach(files, (index, read) => {
    times[index]! += 1;
    out[index] = read;
  }, options);
  expect([...times].every((n) => n === 1), 'every file handed over exactly once').toBe(true);
  return out;
}

/** The real reader behind a script that lets its thread post its first batch, then throws. */
function dyingReader(): string {
  const dying = path.join(dir, 'dying-reader.mjs');
  fs.writeFileSync(
    dying,
    `import { workerData } from 'node:worker_threads';\n` +
      `const port = workerData.port;\n` +
      `const post = port.postMessage.bind(port);\n` +
      `port.postMessage = (batch, transfer) => { post(batch, transfer); throw new Error('the reader dies'); };\n` +
      `await import(${JSON.stringify(BUILT_READER)});\n`,
  );
  return dying;
}

describe.runIf(fs.existsSync(BUILT_READER))('read-ahead: the reader thread', () => {
  it.each([
    ['all of them through the thread', 0],
    ['this thread reading whenever it has nothing to parse', 16],
    ['this thread reading one file at a time, the thread in small batches', 1],
  ])('hands over the very text or reason the main thread reads, for every kind of entry: %s', async (_label, stealFiles) => {
    const files = hostileFolder();
    const expected = expectedOf(files);
    const viaThread = await collect(files, { script: BUILT_READER, minFiles: 0, stealFiles, ...(stealFiles === 1 ? { batchFiles: 7 } : {}) });
    expect(viaThread).toEqual(expected);
    // The odd ones are really among them, each with its reason.
    const reasons = new Set(expected.filter((r): r is Unreadable => typeof r !== 'string').map((r) => r.reason));
    expect(reasons).toEqual(new Set(['a symbolic link, not a file: the board does not follow links', 'not a regular file', 'vanished while being read']));
    expect(expected.filter((r) => typeof r === 'string' && r.includes('\ufffd'))).toHaveLength(1);
  });

  it('stays a few batches ahead of a slow parser, and hands everything over', async () => {
    const files = hostileFolder();
    const expected = expectedOf(files);
    const got = new Array<string | Unreadable>(files.length);
    await readEach(files, (index, read) => {
      got[index] = read;
      // A slow parser: the thread, 16 files a batch and 2 batches ahead, waits for it ~90 times.
      if (index % 16 === 0) {
        const until = performance.now() + 2;
        while (performance.now() < until);
      }
    }, { script: BUILT_READER, minFiles: 0, stealFiles: 0, batchFiles: 16, aheadBatches: 2 });
    expect(got).toEqual(expected);
  });

  it('reads on this thread when the thread cannot start (its script missing), with the same result', async () => {
    const files = hostileFolder();
    const expected = expectedOf(files);
    expect(await collect(files, { script: path.join(dir, 'no-such-reader.js'), minFiles: 0 })).toEqual(expected);
  });

  it('reads the rest on this thread when the thread dies after a batch', async () => {
    const files = hostileFolder();
    const expected = expectedOf(files);
    const dying = dyingReader();
    expect(await collect(files, { script: dying, minFiles: 0, stealFiles: 0 })).toEqual(expected);
  });

  it('a failure of the caller\'s own is its failure, not a fall-back', async () => {
    const files = hostileFolder();
    await expect(
      readEach(files, (index) => {
        if (index === 700) throw new Error('the parser broke');
      }, { script: BUILT_READER, minFiles: 0, stealFiles: 0 }),
    ).rejects.toThrow('the parser broke');
  });

  it('reads the rest on this thread when one of several threads dies after a batch', async () => {
    const files = hostileFolder();
    const expected = expectedOf(files);
    // Every thread posts one batch and dies: what each claimed after it is read here.
    const dying = dyingReader();
    expect(await collect(files, { script: dying, onNetwork: true, networkThreads: 3, stealFiles: 0, batchFiles: 32 })).toEqual(expected);
  });

  it('several threads on a network mount, one per few hundred files up to a bound; one elsewhere', () => {
    expect(readerThreads(READ_AHEAD_MIN_FILES - 1, false)).toBe(0);
    expect(readerThreads(100_000, false)).toBe(1);
    expect(readerThreads(READ_AHEAD_MIN_FILES_NETWORK - 1, true)).toBe(0);
    expect(readerThreads(READ_AHEAD_MIN_FILES_NETWORK, true)).toBe(1);
    expect(readerThreads(2 * READ_AHEAD_MIN_FILES_NETWORK, true)).toBe(2);
    expect(readerThreads(100_000, true)).toBe(READER_THREADS_NETWORK);
    expect(readerThreads(100_000, true, { networkThreads: 2 })).toBe(2);
  });

  it('a few hundred files get the thread on a network mount only, where a read is a wait for the server', async () => {
    const files = hostileFolder();
    expect(files.length).toBeGreaterThan(READ_AHEAD_MIN_FILES_NETWORK);
    expect(files.length).toBeLessThan(READ_AHEAD_MIN_FILES);
    const expected = expectedOf(files);
    // The real reader, behind a script that notes each start (this thread steals no reads: it waits for the threads').
    const starts = path.join(dir, 'reader-starts');
    const noting = path.join(dir, 'noting-reader.mjs');
    // Each thread waits (at most 5 s) until every thread of the census has noted its start, so a
    // first thread cannot read every file before the others run their first line.
    const threads = readerThreads(files.length, true);
    fs.writeFileSync(
      noting,
      `import fs from 'node:fs';\nfs.appendFileSync(${JSON.stringify(starts)}, 'started\\n');\n` +
        `const until = Date.now() + 5000;\n` +
        `while (fs.readFileSync(${JSON.stringify(starts)}, 'utf8').split('\\n').filter(Boolean).length < ${threads} && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);\n` +
        `await import(${JSON.stringify(BUILT_READER)});\n`,
    );
    const started = () => (fs.existsSync(starts) ? fs.readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0);

    expect(await collect(files, { script: noting, onNetwork: false, stealFiles: 0 })).toEqual(expected);
    expect(started(), 'a local census of this size: no thread').toBe(0);
    expect(await collect(files, { script: noting, onNetwork: true, stealFiles: 0 })).toEqual(expected);
    expect(started(), 'the same census on a network mount: several threads').toBe(threads);
    expect(threads).toBeGreaterThan(1);
  });
});
