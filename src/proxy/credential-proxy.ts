import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import zlib from 'node:zlib';
import type { Budget } from '../schema/config.js';
import type { Prices } from '../schema/models.js';
import { overBudget, type OverBudget } from './budget.js';
import { clientHeaders, connectAllowed, targetPath, upstreamHeaders } from './forward.js';
import { appendSpend, DailySpend } from './ledger.js';
import { addUsage, meterFor, NO_USAGE, usdOf, type ResponseUsage, type UsageMeter, type UsageTotals } from './usage.js';

/**
 * The per-run credential proxy (DESIGN-18 "Credential proxy"): the worker talks plain HTTP to it
 * with placeholders where its keys would be; it forwards to `upstream + path` only, with the real
 * keys, streaming both ways, meters every response and refuses requests past a budget. It holds
 * one run's keys and serves that run alone. It never logs a key, and never writes one into an
 * answer of its own.
 */
export interface CredentialProxyOptions {
  /** Listen on a Unix socket (a sandboxed run) or on 127.0.0.1, a free port (`sandbox: none`). */
  readonly listen: { readonly socketPath: string } | { readonly loopback: true };
  /** The real base URL, as resolveEndpoint gives it (http or https, no trailing slash). */
  readonly upstream: string;
  /** Placeholder → real key: secretsFor(endpoint.placeholders, privateEnv). */
  readonly secrets: ReadonlyMap<string, string>;
  /** `host:port` the worker may open a CONNECT tunnel to (harness `sandbox.hosts`); all else 403. */
  readonly allowHosts?: readonly string[];
  /** models.yml `prices`. */
  readonly prices?: Prices;
  /** This run's budget: runBudget(harness.budget, profile.budget). */
  readonly budget?: Budget;
  /** Where each metered response is appended (the daily ledger), and the run it is booked to. */
  readonly ledger?: { readonly logsDir: string; readonly run: string; readonly card: string };
  /** board.yml `daily_budget` (needs `ledger`: the day's spend is read from it). */
  readonly dailyBudget?: Budget;
  /** Called once, the first time a request is refused for a budget. */
  readonly onOverBudget?: (reason: string, detail: OverBudget) => void;
  /** A problem worth a log line (a ledger that cannot be written, an upstream that cannot be reached); never holds a key. */
  readonly onProblem?: (message: string) => void;
  readonly now?: () => Date;
}

export interface CredentialProxy {
  /** `http://127.0.0.1:<port>` when listening on loopback. */
  readonly url?: string;
  readonly socketPath?: string;
  /** This run's metered totals so far. */
  usage(): UsageTotals;
  /** Stop listening, cut open connections and tunnels, and wait for the ledger appends. */
  close(): Promise<void>;
}

function answer(res: http.ServerResponse, status: number, type: string, message: string, extra: Record<string, unknown> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ type: 'error', error: { type, message, ...extra } });
  // The Anthropic and OpenAI SDKs retry a 429 or 5xx unless told not to: no answer of ours gets better by asking again.
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-should-retry': 'false' });
  res.end(body);
}

/** A meter that reads through a content encoding upstream used anyway (identity was asked for). */
function decodingMeter(meter: UsageMeter, encoding: string | undefined): { write(chunk: Buffer): void; finish(): Promise<ResponseUsage | undefined> } {
  const kind = (encoding ?? 'identity').trim().toLowerCase();
  const decoder = kind === 'gzip' || kind === 'x-gzip' ? zlib.createGunzip() : kind === 'deflate' ? zlib.createInflate() : kind === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (kind !== 'identity' && kind !== '' && decoder === undefined) return { write: () => undefined, finish: async () => undefined };
  if (!decoder) return { write: (chunk) => meter.push(chunk), finish: async () => meter.end() };
  let failed = false;
  decoder.on('data', (chunk: Buffer) => meter.push(chunk));
  decoder.on('error', () => (failed = true));
  return {
    write: (chunk) => void (failed || decoder.write(chunk)),
    finish: () =>
      new Promise((resolve) => {
        if (failed) return resolve(undefined);
        decoder.once('end', () => resolve(failed ? undefined : meter.end()));
        decoder.once('error', () => resolve(undefined));
        decoder.end();
      }),
  };
}

export async function startCredentialProxy(options: CredentialProxyOptions): Promise<CredentialProxy> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`credential proxy: upstream must be http:// or https://, not ${upstream.protocol}`);
  if (options.dailyBudget && !options.ledger) throw new Error('credential proxy: a daily budget needs the ledger (options.ledger)');
  const secure = upstream.protocol === 'https:';
  const transport = secure ? https : http;
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const target = {
    hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
    port: upstream.port === '' ? (secure ? 443 : 80) : Number(upstream.port),
    host: upstream.host,
    basePath: upstream.pathname,
  };
  const now = options.now ?? (() => new Date());
  const problem = options.onProblem ?? (() => undefined);
  const daily = options.ledger ? new DailySpend(options.ledger.logsDir) : undefined;
  const pending = new Set<Promise<void>>();
  const tunnels = new Set<Duplex>();
  let totals: UsageTotals = NO_USAGE;
  let refused: OverBudget | undefined;

  /** Count one answer, and append it to the ledger (resolves once written, never rejects). */
  const book = (usage: ResponseUsage | undefined): Promise<void> => {
    const usd = usage ? usdOf(usage, options.prices ?? {}) : undefined;
    totals = addUsage(totals, usage, usd);
    if (!options.ledger || !usage) return Promise.resolve();
    const { logsDir, run, card } = options.ledger;
    const at = now();
    const line = { run, card, ...(usage.model ? { model: usage.model } : {}), input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, ...(usd !== undefined ? { usd } : {}), at: at.toISOString() };
    const write = appendSpend(logsDir, line, at).catch((error: unknown) => problem(`spend ledger not written: ${(error as Error).message}`));
    pending.add(write);
    void write.finally(() => pending.delete(write));
    return write;
  };

  /** The first budget used up, checked before each request is forwarded. */
  const checkBudgets = async (): Promise<OverBudget | undefined> => {
    const run = overBudget('run', options.budget, { tokens: totals.input_tokens + totals.output_tokens, usd: totals.usd ?? 0 });
    if (run) return run;
    if (!options.dailyBudget || !daily) return undefined;
    await Promise.all(pending);
    return overBudget('daily', options.dailyBudget, await daily.total(now()));
  };

  const forward = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = targetPath(target.basePath, req.url);
    if (!path.ok) return answer(res, 400, 'invalid_request_error', `board credential proxy: ${path.reason}`);
    let over: OverBudget | undefined;
    try {
      over = await checkBudgets();
    } catch (error) {
      // A ledger the board cannot read is no licence to spend: refuse, and say why.
      problem(`daily spend unreadable: ${(error as Error).message}`);
      // The worker is told that, not where the board keeps its files.
      return answer(res, 503, 'proxy_error', 'board credential proxy: the daily spend ledger cannot be read (the run log says why)');
    }
    if (over) {
      if (!refused) {
        refused = over;
        options.onOverBudget?.(over.reason, over);
      }
      return answer(res, 429, 'budget_exceeded', `board credential proxy: ${over.reason}`, { budget: over.budget, limit: over.limit, allowed: over.allowed, spent: over.spent });
    }
    const outgoing = transport.request({
      protocol: upstream.protocol,
      hostname: target.hostname,
      port: target.port,
      path: path.path,
      method: req.method,
      headers: upstreamHeaders(req.headers, target.host, options.secrets),
      agent,
    });
    let booked = false;
    const bookOnce = async (usage: ResponseUsage | undefined) => {
      if (!booked) (booked = true), await book(usage);
    };
    outgoing.on('response', (incoming) => {
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, clientHeaders(incoming.headers));
      res.flushHeaders();
      const meter = decodingMeter(meterFor(incoming.headers['content-type']), incoming.headers['content-encoding'] as string | undefined);
      incoming.on('data', (chunk: Buffer) => meter.write(chunk));
      // The answer ends only once its spend is booked (totals and ledger): the worker's next
      // request, and every other run's, is checked against it.
      const settle = () => meter.finish().catch(() => undefined).then(bookOnce);
      let ended = false;
      incoming.on('end', () => {
        ended = true;
        void settle().then(() => res.end());
      });
      // Cut short (upstream or the client went away): what streamed so far still counts.
      incoming.on('close', () => {
        if (!ended) void settle().then(() => res.destroy());
      });
      incoming.on('error', () => undefined);
      incoming.pipe(res, { end: false });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      void bookOnce(undefined);
      problem(`upstream ${target.host}: ${error.code ?? error.message}`);
      answer(res, 502, 'proxy_error', `board credential proxy: upstream ${target.host} failed: ${error.code ?? error.message}`);
    });
    // The client went away before the answer ended: stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  };

  const server = http.createServer({ keepAlive: true }, (req, res) => {
    forward(req, res).catch((error: unknown) => {
      problem(`request failed: ${(error as Error).message}`);
      answer(res, 500, 'proxy_error', 'board credential proxy: internal error');
    });
  });

  server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // A worker that resets its end must never take the proxy (and its supervisor) down with it.
    socket.on('error', () => socket.destroy());
    const to = connectAllowed(req.url, options.allowHosts ?? []);
    if (!to) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nboard credential proxy: this host is not in the harness\'s sandbox.hosts\n');
      return;
    }
    const remote = net.connect(to.port, to.host);
    tunnels.add(socket).add(remote);
    const drop = () => {
      tunnels.delete(socket);
      tunnels.delete(remote);
      socket.destroy();
      remote.destroy();
    };
    remote.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) remote.write(head);
      socket.pipe(remote).pipe(socket);
    });
    remote.on('error', () => {
      if (remote.connecting) socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n');
      drop();
    });
    socket.on('error', drop);
    socket.on('close', drop);
    remote.on('close', drop);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });

  const listen = options.listen;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('socketPath' in listen) server.listen(listen.socketPath, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : undefined;

  return {
    ...(url !== undefined ? { url } : {}),
    ...('socketPath' in listen ? { socketPath: listen.socketPath } : {}),
    usage: () => totals,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const t of tunnels) t.destroy();
      });
      agent.destroy();
      await Promise.all(pending);
    },
  };
}
