import fs from 'node:fs';

/**
 * Everything `fd` gives until its end, read with blocking reads. For a process with nothing else
 * to do until its input comes: a spare supervisor waiting for its job wakes straight into it,
 * where through `process.stdin`'s stream the job reached it ~2.5 ms later, on every run's start.
 * Node leaves a child's stdin pipe blocking; a descriptor that is not (EAGAIN) is read on through
 * `stream()` from where the blocking reads stopped, so nothing read is lost either way.
 */
export async function readToEnd(fd: number, stream: () => AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = fs.readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINTR') continue;
      if (code !== 'EAGAIN') throw error;
      for await (const chunk of stream()) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      break;
    }
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks);
}
