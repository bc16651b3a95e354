#!/usr/bin/env node
/**
 * The credential proxy's cost (`npm run build && node bench/proxy.mjs [--requests 200] [--starts 30]`):
 * - per request: the median (and p90) round trip of small POSTs to a fake upstream on 127.0.0.1,
 *   direct and through the proxy (on 127.0.0.1:0 and on a Unix socket), keep-alive on both legs,
 *   one request at a time; a JSON answer and an SSE answer (metered both);
 * - per run start: startCredentialProxy() until it listens, and close().
 * Prints a table and writes bench/results-proxy.json.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { startCredentialProxy } = await import(path.join(HERE, '../dist/proxy/credential-proxy.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const REQUESTS = arg('requests', 200);
const STARTS = arg('starts', 30);

const json = JSON.stringify({ type: 'message', model: 'm', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, output_tokens: 5 } });
const sse = ['message_start', 'content_block_delta', 'message_delta', 'message_stop']
  .map((t, i) => `event: ${t}\ndata: ${JSON.stringify({ type: t, ...(i === 0 ? { message: { model: 'm', usage: { input_tokens: 10, output_tokens: 1 } } } : {}), ...(i === 2 ? { usage: { output_tokens: 5 } } : {}) })}\n\n`)
  .join('');
const upstream = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url.endsWith('/sse')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json);
    }
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
function timeRequests(where, pathName, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const one = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = http.request({ ...where, agent, method: 'POST', path: pathName, headers: { 'content-type': 'application/json', 'x-api-key': 'board-placeholder-K' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
      });
      req.on('error', reject);
      req.end(body);
    });
  return (async () => {
    for (let i = 0; i < 20; i++) await one(); // warm-up
    for (let i = 0; i < n; i++) times.push(await one());
    agent.destroy();
    return times;
  })();
}
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-bench-proxy-'));
const secrets = new Map([['board-placeholder-K', 'sk-real']]);
const loop = await startCredentialProxy({ listen: { loopback: true }, upstream: upstreamUrl, secrets });
const sock = await startCredentialProxy({ listen: { socketPath: path.join(dir, 'model.sock') }, upstream: upstreamUrl, secrets, ledger: { logsDir: dir, run: 'bench', card: 'bench.md' }, dailyBudget: { tokens: 1e12 } });
const port = (u) => ({ host: '127.0.0.1', port: Number(new URL(u).port) });

const rows = [];
for (const kind of ['json', 'sse']) {
  const p = kind === 'sse' ? '/v1/sse' : '/v1/messages';
  const direct = await timeRequests(port(upstreamUrl), p, REQUESTS);
  const viaLoop = await timeRequests(port(loop.url), p, REQUESTS);
  const viaSock = await timeRequests({ socketPath: sock.socketPath }, p, REQUESTS);
  for (const [name, t] of [['direct', direct], ['proxy 127.0.0.1', viaLoop], ['proxy unix socket + ledger + daily budget', viaSock]]) {
    rows.push({ answer: kind, path: name, median_ms: quantile(t, 0.5), p90_ms: quantile(t, 0.9) });
  }
}
await loop.close();
await sock.close();

const starts = [];
for (let i = 0; i < STARTS; i++) {
  const t0 = process.hrtime.bigint();
  const p = await startCredentialProxy({ listen: { socketPath: path.join(dir, `s${i}.sock`) }, upstream: 'https://api.anthropic.com', secrets });
  const t1 = process.hrtime.bigint();
  await p.close();
  starts.push({ start: Number(t1 - t0) / 1e6, close: Number(process.hrtime.bigint() - t1) / 1e6 });
}
upstream.close();
fs.rmSync(dir, { recursive: true, force: true });

const start = { median_ms: quantile(starts.map((s) => s.start), 0.5), max_ms: Math.max(...starts.map((s) => s.start)), close_median_ms: quantile(starts.map((s) => s.close), 0.5) };
for (const r of rows) console.log(`${r.answer.padEnd(5)} ${r.path.padEnd(44)} median ${r.median_ms.toFixed(3)} ms  p90 ${r.p90_ms.toFixed(3)} ms`);
console.log(`proxy start (listening) median ${start.median_ms.toFixed(3)} ms, max ${start.max_ms.toFixed(3)} ms; close median ${start.close_median_ms.toFixed(3)} ms`);
fs.writeFileSync(path.join(HERE, 'results-proxy.json'), `${JSON.stringify({ node: process.version, requests: REQUESTS, rows, start }, null, 2)}\n`);
