import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRETS, compose, makeBoard, tmp } from './fixtures.js';

/** A fake OpenAI-compatible server on loopback: records each request, answers from `reply`. */
interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: { model: string; messages: { role: string; content: string }[]; stream: boolean };
}

let server: http.Server;
let base: string;
let seen: Seen[];
let reply: (seen: Seen) => { status: number; body: unknown };

beforeEach(async () => {
  seen = [];
  reply = () => ({ status: 200, body: { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '- Call the plumber\n- Book the venue\n- Send the invoice' }, finish_reason: 'stop' }] } });
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body: data ? JSON.parse(data) : undefined };
      seen.push(entry);
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'qwen-test.gguf' }] }));
        return;
      }
      const { status, body } = reply(entry);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A fake `board` CLI: appends its argv (one JSON line per call) to $BOARD_CALLS. */
function fakeBoard(dir: string): string {
  const file = path.join(dir, 'board');
  fs.writeFileSync(file, `#!${process.execPath}\nrequire('node:fs').appendFileSync(process.env.BOARD_CALLS, JSON.stringify(process.argv.slice(2)) + '\\n');\n`, { mode: 0o755 });
  return file;
}

/** Run the composed local-model command the way the supervisor would (async: the server lives in this process). */
async function runWorker(fixture = makeBoard(), extraEnv: Record<string, string> = {}) {
  const { command, vault, card } = await compose('local-model', fixture);
  const bin = tmp('bin');
  fakeBoard(bin);
  const calls = path.join(tmp('calls'), 'calls.ndjson');
  const env = { ...command.env, PATH: `${bin}:${path.dirname(process.execPath)}:${command.env.PATH}`, LOCAL_MODEL_URL: base, BOARD_CALLS: calls, ...extraEnv };
  const child = spawn(command.file, [...command.args], { cwd: command.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const boardCalls = fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : [];
  return { status, stderr, boardCalls, vault, card, command };
}

describe('local-model worker against a fake OpenAI-compatible server', () => {
  it('sends profile, card and inputs, writes the answer to the destination and closes the card with paths', async () => {
    const { status, stderr, boardCalls, vault, card, command } = await runWorker(undefined, { LOCAL_MODEL_API_KEY: SECRETS.LOCAL_MODEL_API_KEY });
    expect(status, stderr).toBe(0);

    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v1/chat/completions');
    expect(request!.authorization).toBe(`Bearer ${SECRETS.LOCAL_MODEL_API_KEY}`);
    expect(request!.body.model).toBe('local-gguf');
    expect(request!.body.stream).toBe(false);
    const [system, user] = request!.body.messages;
    expect(system!.role).toBe('system');
    expect(system!.content).toContain(command.prompt.trim());
    expect(system!.content).toContain('Write the weekly digest.'); // the profile
    expect(user!.content).toContain('Summarise the inbox in three bullets.'); // the card
    expect(user!.content).toContain('- book the venue'); // the input, resolved from the vault
    const sent = JSON.stringify(request!.body);
    for (const secret of Object.values(SECRETS)) expect(sent).not.toContain(secret); // keys never touch the model

    const output = path.join(vault, 'digests', '2026-12-01.md');
    expect(fs.readFileSync(output, 'utf8')).toBe('- Call the plumber\n- Book the venue\n- Send the invoice\n');

    expect(boardCalls.map((c) => c.slice(0, 2))).toEqual([['card', 'note'], ['card', 'note'], ['card', 'close']]);
    expect(boardCalls[0]![2]).toBe(card);
    expect(boardCalls[0]![3]).toContain('profile writer');
    expect(boardCalls[1]![3]).toContain('written to digests/2026-12-01.md');
    expect(boardCalls[2]).toEqual(['card', 'close', card, '--path', 'digests/2026-12-01.md']);
  });

  it('without a destination, writes outputs/<card>.md and closes with that path', async () => {
    const fixture = makeBoard();
    fs.writeFileSync(fixture.card, fs.readFileSync(fixture.card, 'utf8').replace('destination: digests/2026-12-01.md\n', ''));
    const { status, boardCalls, vault, card } = await runWorker(fixture);
    expect(status).toBe(0);
    expect(fs.readFileSync(path.join(vault, 'outputs', '2026-12-01-weekly-digest.md'), 'utf8')).toContain('Book the venue');
    expect(boardCalls.at(-1)).toEqual(['card', 'close', card, '--path', 'outputs/2026-12-01-weekly-digest.md']);
  });

  it('fails the card (board card fail) when the server errors, and writes nothing', async () => {
    reply = () => ({ status: 500, body: { error: { message: 'model not loaded' } } });
    const { status, boardCalls, vault, card } = await runWorker();
    expect(status).toBe(1);
    expect(fs.existsSync(path.join(vault, 'digests'))).toBe(false);
    expect(boardCalls.at(-1)!.slice(0, 3)).toEqual(['card', 'fail', card]);
    expect(boardCalls.at(-1)![3]).toContain('HTTP 500');
    expect(boardCalls.some((c) => c[1] === 'close')).toBe(false);
  });

  it('refuses an input that is a credential file before anything is sent', async () => {
    const fixture = makeBoard();
    fs.writeFileSync(path.join(fixture.vault, '.env'), `ANTHROPIC_API_KEY=${SECRETS.ANTHROPIC_API_KEY}\n`);
    fs.writeFileSync(fixture.card, fs.readFileSync(fixture.card, 'utf8').replace('source: notes/inbox.md', 'source: .env'));
    const { status, boardCalls, card } = await runWorker(fixture);
    expect(status).toBe(1);
    expect(seen).toHaveLength(0);
    expect(boardCalls).toHaveLength(1);
    expect(boardCalls[0]!.slice(0, 3)).toEqual(['card', 'fail', card]);
    expect(boardCalls[0]![3]).toContain('credential guard');
  });

  it('refuses a destination outside the vault', async () => {
    const fixture = makeBoard();
    fs.writeFileSync(fixture.card, fs.readFileSync(fixture.card, 'utf8').replace('destination: digests/2026-12-01.md', 'destination: ../escape.md'));
    const { status, boardCalls } = await runWorker(fixture);
    expect(status).toBe(1);
    expect(seen).toHaveLength(0);
    expect(boardCalls[0]![3]).toContain('not a path inside the vault');
  });

  it('answers `board harness check` (BOARD_HARNESS_CHECK=1) with the server it reaches', async () => {
    const { command } = await compose('local-model');
    const child = spawn(command.file, [command.args[0]!], { env: { ...command.env, PATH: `${path.dirname(process.execPath)}:${command.env.PATH}`, LOCAL_MODEL_URL: base, BOARD_HARNESS_CHECK: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    const probe = JSON.parse(out);
    expect(probe.path).toBe(`${base}/v1/chat/completions`);
    expect(probe.version).toContain('qwen-test.gguf');
    expect(probe.guard.wired).toBe(true);
  });
});
