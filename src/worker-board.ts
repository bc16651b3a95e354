#!/usr/bin/env node
/**
 * The `board` a sandboxed worker runs (`/run/board/bin/board`, issue 18): a thin client of the
 * verbs channel. It posts its arguments to `$BOARD_VERBS_URL` (the sandbox's loopback port that
 * its init bridges to the supervisor's socket), prints the answer's stdout and stderr and exits
 * with its code. The supervisor decides what runs and as whose verb; nothing here is trusted.
 *
 * Node built-ins only, loaded with `import()`: this file has no import or export statement, so it
 * runs as it is wherever it is bound (a file without `.js` and without a package.json beside it is
 * CommonJS to Node; in dist/ it is an ES module).
 */

/** What the supervisor answers. */
interface Answer {
  stdout: string;
  stderr: string;
  code: number;
}

/** Past this the client gives up waiting (the supervisor stops a verb after 60 s). */
const CLIENT_TIMEOUT_MS = 90_000;

async function main(): Promise<number> {
  const http = await import('node:http');
  const url = process.env.BOARD_VERBS_URL;
  const fail = (sentence: string): number => {
    process.stderr.write(`board: ${sentence}\n`);
    return 1;
  };
  if (!url) return fail('BOARD_VERBS_URL is not set: this board only carries a worker\'s verbs to its supervisor, and the run gave it no channel');
  let target: URL;
  try {
    target = new URL('/verb', url);
  } catch {
    return fail(`BOARD_VERBS_URL is not a URL: ${JSON.stringify(url)}`);
  }
  // No verb reads stdin today: only the arguments travel.
  const body = JSON.stringify({ args: process.argv.slice(2) });
  const answer = await new Promise<Answer | string>((resolve) => {
    const req = http.request(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => resolve(`the verbs channel at ${url} broke off: ${error.message}`));
      res.on('end', () => {
        try {
          const data = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<Answer>;
          if (typeof data.stdout !== 'string' || typeof data.stderr !== 'string' || typeof data.code !== 'number') throw new Error('not an answer');
          resolve({ stdout: data.stdout, stderr: data.stderr, code: data.code });
        } catch {
          resolve(`the verbs channel at ${url} answered HTTP ${res.statusCode ?? '?'} without a verb's answer`);
        }
      });
    });
    req.setTimeout(CLIENT_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${CLIENT_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(`the verbs channel at ${url} is down (${error.code ?? error.message}): the supervisor of this run carries out its verbs`));
    req.end(body);
  });
  if (typeof answer === 'string') return fail(answer);
  await write(process.stdout, answer.stdout);
  await write(process.stderr, answer.stderr);
  return answer.code;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return text === '' ? Promise.resolve() : new Promise((resolve) => stream.write(text, () => resolve()));
}

void main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`board: ${error.message}\n`);
    process.exitCode = 1;
  },
);
