import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readToEnd } from '../../src/worker/read-to-end.js';

/** How a spare supervisor reads its job (src/worker/read-to-end.ts): everything, whatever the descriptor. */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-read-to-end-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A FIFO and a shell that writes `script`'s output into it. */
function fifoWriter(name: string, script: string) {
  const fifo = path.join(dir, name);
  execFileSync('mkfifo', [fifo]);
  const writer = spawn('/bin/sh', ['-c', `{ ${script}; } > "${fifo}"`], { stdio: 'ignore' });
  return { fifo, ended: new Promise<void>((r) => writer.once('exit', () => r())) };
}

describe('readToEnd', () => {
  it('reads a blocking descriptor to its end with blocking reads, over many reads, never the stream', async () => {
    const { fifo, ended } = fifoWriter('blocking', `head -c 200000 /dev/zero | tr '\\0' a; sleep 0.2; printf end`);
    const fd = fs.openSync(fifo, 'r');
    const got = await readToEnd(fd, () => {
      throw new Error('the stream was not needed');
    });
    fs.closeSync(fd);
    await ended;
    expect(got.length).toBe(200_003);
    expect(got.subarray(0, 200_000).every((b) => b === 0x61)).toBe(true);
    expect(got.subarray(200_000).toString()).toBe('end');
  });

  it('reads on through the stream where a read would block (EAGAIN), keeping what the blocking reads had', async () => {
    const ready = path.join(dir, 'ready');
    const { fifo, ended } = fifoWriter('nonblocking', `printf first; touch "${ready}"; sleep 0.3; printf second`);
    const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    // Read only once the writer has the FIFO open and has written its first part.
    while (!fs.existsSync(ready)) await new Promise((r) => setTimeout(r, 10));
    let streams = 0;
    const got = await readToEnd(fd, () => {
      streams += 1;
      return new net.Socket({ fd, readable: true, writable: false });
    });
    await ended;
    expect(streams).toBe(1);
    expect(got.toString()).toBe('firstsecond');
  });
});
