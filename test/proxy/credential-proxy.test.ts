import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCredentialProxy, type CredentialProxy, type CredentialProxyOptions } from '../../src/proxy/credential-proxy.js';
import { appendSpend } from '../../src/proxy/ledger.js';
import { waitFor } from '../helpers/wait.js';
// The scripted model server the real-CLI suite uses: the proxy must meter exactly what it sends.
import { startFakeModel } from '../clients/fake-model.mjs';

const KEY = 'sk-ant-REAL-0123456789abcdef';
const PLACEHOLDER = 'board-placeholder-ANTHROPIC_API_KEY';
const secrets = new Map([[PLACEHOLDER, KEY]]);

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A small upstream of our own: records every request, answers with `handler`. */
async function startUpstream(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** One request through the proxy (on its socket or its port). */
function send(proxy: CredentialProxy, options: { method?: string; path: string; headers?: http.OutgoingHttpHeaders; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const where = proxy.socketPath ? { socketPath: proxy.socketPath } : { host: '127.0.0.1', port: Number(new URL(proxy.url!).port) };
    const req = http.request({ ...where, method: options.method ?? 'POST', path: options.path, headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body ?? '');
  });
}

const cleanups: (() => Promise<void> | void)[] = [];
let tmp: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'board-proxy-'));
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await fs.rm(tmp, { recursive: true, force: true });
});

async function proxyFor(upstream: string, extra: Partial<CredentialProxyOptions> = {}): Promise<CredentialProxy> {
  const proxy = await startCredentialProxy({ listen: { loopback: true }, upstream, secrets, ...extra });
  cleanups.push(() => proxy.close());
  return proxy;
}

async function fakeModel() {
  const fake = await startFakeModel({ script: [] });
  cleanups.push(() => fake.close());
  return fake;
}

describe('credential proxy against the scripted fake model (all three APIs, JSON and streaming)', () => {
  it('replaces the placeholder, never returns the key, and meters every answer', async () => {
    const fake = await fakeModel();
    const anthropic = await proxyFor(fake.url, { listen: { socketPath: path.join(tmp, 'model.sock') }, prices: { 'fake-model': { input: 3, output: 15 } } });
    expect(anthropic.socketPath).toBe(path.join(tmp, 'model.sock'));
    const openai = await proxyFor(`${fake.url}/v1`, { prices: { 'fake-model': { input: 3, output: 15 } } });
    expect(openai.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const replies: Reply[] = [];
    for (const stream of [false, true]) {
      const body = (extra: object) => JSON.stringify({ model: 'fake-model', stream, ...extra });
      replies.push(await send(anthropic, { path: '/v1/messages', headers: { 'x-api-key': PLACEHOLDER, 'anthropic-version': '2023-06-01' }, body: body({ messages: [{ role: 'user', content: 'hi' }] }) }));
      replies.push(await send(openai, { path: '/responses', headers: { authorization: `Bearer ${PLACEHOLDER}` }, body: body({ input: 'hi' }) }));
      // Chat Completions streams carry usage only when asked (stream_options); the fake always sends it.
      replies.push(await send(openai, { path: '/chat/completions', headers: { authorization: `Bearer ${PLACEHOLDER}` }, body: body({ messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } }) }));
    }
    for (const r of replies) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r)).not.toContain(KEY);
    }
    expect(replies.filter((r) => /event-stream/.test(String(r.headers['content-type'])))).toHaveLength(3);

    expect(fake.requests.map((r: { path: string }) => r.path)).toEqual(['/v1/messages', '/v1/responses', '/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/chat/completions']);
    for (const r of fake.requests as { headers: http.IncomingHttpHeaders; raw: string }[]) {
      const credential = r.headers['x-api-key'] ?? r.headers.authorization;
      expect([KEY, `Bearer ${KEY}`]).toContain(credential);
      expect(JSON.stringify(r.headers)).not.toContain(PLACEHOLDER);
      expect(r.headers['accept-encoding']).toBe('identity');
      expect(r.headers.host).toBe(new URL(fake.url).host);
    }

    // fake-model: 10 input + 5 output tokens per answer; priced at $3 / $15 per million.
    expect(anthropic.usage()).toEqual({ requests: 2, input_tokens: 20, output_tokens: 10, usd: expect.closeTo(2 * 105e-6, 12) });
    expect(openai.usage()).toEqual({ requests: 4, input_tokens: 40, output_tokens: 20, usd: expect.closeTo(4 * 105e-6, 12) });
  });
});

describe('streaming', () => {
  it('passes the first SSE event on before upstream has ended', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let upstreamEnded = false;
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { model: 'm', usage: { input_tokens: 7, output_tokens: 1 } } })}\n\n`);
      // The rest only once the client has seen the first event through the proxy.
      void released.then(() => {
        res.write(`event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 3 } })}\n\n`);
        upstreamEnded = true;
        res.end();
      });
    });
    cleanups.push(upstream.close);
    const proxy = await proxyFor(upstream.url);
    const firstSeenBeforeEnd = await new Promise<boolean>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: Number(new URL(proxy.url!).port), method: 'POST', path: '/v1/messages' }, (res) => {
        let first = true;
        let before = false;
        res.on('data', (chunk: Buffer) => {
          if (first && chunk.toString().includes('message_start')) {
            first = false;
            before = !upstreamEnded;
            release();
          }
        });
        res.on('end', () => resolve(before));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(firstSeenBeforeEnd).toBe(true);
    expect(proxy.usage()).toEqual({ requests: 1, input_tokens: 7, output_tokens: 3 });
  });

  it('a stream the client hangs up on still counts what streamed, and upstream is let go', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'message_start', message: { model: 'm', usage: { input_tokens: 7, output_tokens: 1 } } })}\n\n`);
      res.on('close', () => upstreamClosed()); // never ends on its own
    });
    cleanups.push(upstream.close);
    const proxy = await proxyFor(upstream.url);
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: Number(new URL(proxy.url!).port), method: 'POST', path: '/v1/messages' }, (res) => {
        res.once('data', () => (req.destroy(), resolve()));
      });
      req.on('error', () => undefined); // the hang-up we cause
      req.end('{}');
    });
    await closed;
    await waitFor('the cut answer to be booked', () => proxy.usage().requests === 1);
    expect(proxy.usage()).toEqual({ requests: 1, input_tokens: 7, output_tokens: 1 });
  });

  it('meters a gzip answer from an upstream that ignored identity, and passes it through unchanged', async () => {
    const body = zlib.gzipSync(JSON.stringify({ object: 'chat.completion', model: 'm', usage: { prompt_tokens: 4, completion_tokens: 2 } }));
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(body);
    });
    cleanups.push(upstream.close);
    const proxy = await proxyFor(upstream.url);
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: Number(new URL(proxy.url!).port), method: 'POST', path: '/chat/completions', headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(reply.equals(body)).toBe(true);
    expect(upstream.seen[0]!.headers['accept-encoding']).toBe('identity');
    expect(proxy.usage()).toEqual({ requests: 1, input_tokens: 4, output_tokens: 2 });
  });
});

describe('budgets', () => {
  it('a run past its token budget gets 429 naming the budget, upstream sees no more, onOverBudget once', async () => {
    const fake = await fakeModel();
    const reasons: string[] = [];
    const proxy = await proxyFor(fake.url, { budget: { tokens: 15 }, onOverBudget: (reason) => reasons.push(reason) });
    const ask = () => send(proxy, { path: '/v1/messages', headers: { 'x-api-key': PLACEHOLDER }, body: JSON.stringify({ model: 'fake-model' }) });
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(refused.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(refused.body)).toEqual({ type: 'error', error: { type: 'budget_exceeded', message: 'board credential proxy: run budget of 15 tokens used up: 15 tokens spent this run', budget: 'run', limit: 'tokens', allowed: 15, spent: 15 } });
    expect((await ask()).status).toBe(429);
    expect(reasons).toEqual(['run budget of 15 tokens used up: 15 tokens spent this run']);
    expect(fake.requests).toHaveLength(1);
    expect(refused.body).not.toContain(KEY);
  });

  it('a run past its USD budget (priced answers) is refused', async () => {
    const fake = await fakeModel();
    const proxy = await proxyFor(fake.url, { budget: { usd: 0.0001 }, prices: { 'fake-model': { input: 3, output: 15 } } });
    const ask = () => send(proxy, { path: '/v1/messages', body: JSON.stringify({ model: 'fake-model', stream: true }) });
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({ budget: 'run', limit: 'usd', allowed: 0.0001 });
  });

  it('the daily budget counts every run of the day from the ledger', async () => {
    const fake = await fakeModel();
    const logsDir = path.join(tmp, 'logs');
    const now = () => new Date(2026, 11, 3, 9, 30);
    // Earlier today, another run spent 20 tokens.
    await appendSpend(logsDir, { run: 'earlier', card: 'x.md', input_tokens: 15, output_tokens: 5, at: now().toISOString() }, now());
    const reasons: string[] = [];
    const a = await proxyFor(fake.url, { ledger: { logsDir, run: 'run-a', card: 'a.md' }, dailyBudget: { tokens: 50 }, now, onOverBudget: (r) => reasons.push(`a: ${r}`) });
    const b = await proxyFor(fake.url, { ledger: { logsDir, run: 'run-b', card: 'b.md' }, dailyBudget: { tokens: 50 }, now, onOverBudget: (r) => reasons.push(`b: ${r}`) });
    const ask = (p: CredentialProxy) => send(p, { path: '/v1/messages', body: JSON.stringify({ model: 'fake-model' }) });
    expect((await ask(a)).status).toBe(200); // 35
    expect((await ask(b)).status).toBe(200); // 50
    const refusedA = await ask(a);
    const refusedB = await ask(b);
    expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
    expect(JSON.parse(refusedA.body).error).toMatchObject({ budget: 'daily', limit: 'tokens', allowed: 50, spent: 50 });
    expect(reasons).toEqual(['a: daily budget of 50 tokens used up: 50 tokens spent today, across all runs', 'b: daily budget of 50 tokens used up: 50 tokens spent today, across all runs']);
    await a.close();
    const lines = (await fs.readFile(path.join(logsDir, 'spend', '2026-12-03.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.run, l.card, l.model, l.input_tokens, l.output_tokens])).toEqual([
      ['earlier', 'x.md', undefined, 15, 5],
      ['run-a', 'a.md', 'fake-model', 10, 5],
      ['run-b', 'b.md', 'fake-model', 10, 5],
    ]);
  });
});

describe('nothing steers the proxy elsewhere', () => {
  async function rig() {
    const upstream = await startUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, path: req.url }));
    });
    const evil = await startUpstream((_req, res) => res.end('evil'));
    cleanups.push(upstream.close, evil.close);
    const proxy = await proxyFor(`${upstream.url}/v1`);
    return { upstream, evil, proxy };
  }

  it.each([
    [`absolute URI`, (evil: string) => `${evil}/v1/messages`],
    [`absolute https URI`, () => `https://evil.example/v1/messages`],
    [`// path`, (evil: string) => `//${new URL(evil).host}/v1/messages`],
    ['.. segment', () => '/../../etc/passwd'],
    ['encoded .. segment', () => '/%2e%2e/admin'],
    ['backslash', () => '/\\evil.example/x'],
  ])('%s: 400, nothing forwarded, no key in the answer', async (_name, target) => {
    const { upstream, evil, proxy } = await rig();
    const reply = await send(proxy, { path: target(evil.url), headers: { 'x-api-key': PLACEHOLDER } });
    expect(reply.status).toBe(400);
    expect(reply.body).not.toContain(KEY);
    expect(upstream.seen).toHaveLength(0);
    expect(evil.seen).toHaveLength(0);
  });

  it('a Host header naming another host changes nothing: upstream gets the request, with its own Host', async () => {
    const { upstream, evil, proxy } = await rig();
    const reply = await send(proxy, { path: '/messages', headers: { host: new URL(evil.url).host, 'x-forwarded-host': 'evil.example', 'x-api-key': PLACEHOLDER } });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body).path).toBe('/v1/messages');
    expect(upstream.seen[0]!.headers.host).toBe(new URL(upstream.url).host);
    expect(upstream.seen[0]!.headers['x-api-key']).toBe(KEY);
    expect(evil.seen).toHaveLength(0);
  });

  it('an unreachable upstream is a 502 that names the host and never the key', async () => {
    const closed = await startUpstream(() => undefined);
    await closed.close();
    const proxy = await proxyFor(closed.url);
    const reply = await send(proxy, { path: '/v1/messages', headers: { 'x-api-key': PLACEHOLDER } });
    expect(reply.status).toBe(502);
    expect(reply.body).toContain('ECONNREFUSED');
    expect(reply.body).not.toContain(KEY);
    expect(proxy.usage().requests).toBe(1);
  });
});

describe('CONNECT', () => {
  function connect(proxy: CredentialProxy, authority: string): Promise<{ status: number; socket: net.Socket }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: Number(new URL(proxy.url!).port), method: 'CONNECT', path: authority });
      req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
      req.on('response', (res) => resolve({ status: res.statusCode ?? 0, socket: res.socket }));
      req.on('error', reject);
      req.end();
    });
  }

  it('tunnels to an allowed host:port only; 403 otherwise', async () => {
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const port = (echo.address() as net.AddressInfo).port;
    cleanups.push(() => new Promise<void>((r) => echo.close(() => r())));
    const proxy = await proxyFor('http://127.0.0.1:9', { allowHosts: [`127.0.0.1:${port}`] });

    const allowed = await connect(proxy, `127.0.0.1:${port}`);
    expect(allowed.status).toBe(200);
    const echoed = await new Promise<string>((resolve) => {
      allowed.socket.once('data', (d: Buffer) => resolve(d.toString()));
      allowed.socket.write('ping');
    });
    expect(echoed).toBe('ping');
    allowed.socket.destroy();

    for (const authority of [`127.0.0.1:${port + 1}`, `localhost:${port}`, 'evil.example:443']) {
      const denied = await connect(proxy, authority);
      expect(denied.status, authority).toBe(403);
      denied.socket.destroy();
    }
  });

  it('a client that resets a refused CONNECT does not take the proxy down (found by the attack suite: curl -p -x)', async () => {
    const proxy = await proxyFor('http://127.0.0.1:9');
    for (let i = 0; i < 5; i++) {
      const socket = net.connect(Number(new URL(proxy.url!).port), '127.0.0.1');
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
      socket.resetAndDestroy();
    }
    // Still answering: a request after the resets gets the proxy's own refusal of an absolute URI.
    const reply = await send(proxy, { path: 'http://evil.example/x' });
    expect(reply.status).toBe(400);
  });
});

describe('a daily budget with an unreadable ledger', () => {
  it('refuses (503) rather than spend unchecked, and says why to the supervisor only', async () => {
    const fake = await fakeModel();
    const logsDir = path.join(tmp, 'logs');
    await fs.mkdir(path.join(logsDir, 'spend'), { recursive: true });
    const now = () => new Date(2026, 11, 3, 9, 30);
    await fs.symlink('/etc/passwd', path.join(logsDir, 'spend', '2026-12-03.ndjson'));
    const problems: string[] = [];
    const proxy = await proxyFor(fake.url, { ledger: { logsDir, run: 'r', card: 'c.md' }, dailyBudget: { tokens: 50 }, now, onProblem: (p) => problems.push(p) });
    const reply = await send(proxy, { path: '/v1/messages', body: '{}' });
    expect(reply.status).toBe(503);
    expect(reply.body).not.toContain(logsDir);
    expect(problems.join('\n')).toMatch(/ELOOP/);
    expect(fake.requests).toHaveLength(0);
  });
});
