import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProbe } from '../../src/sandbox/probe.js';
import { isProcessAlive } from '../../src/vault/process-alive.js';
// Plain ESM, shared with the real-CLI suite.
import { ATTACKS, materialize } from './attacks.mjs';

/**
 * The attack suite (`npm run test:security`): a real `board tick` (the built CLI) dispatches a card
 * to a worker that runs every attack of attacks.mjs from inside, the way a model steered by a
 * hostile card would. Canaries sit in the home folder, next to the config, in the private env
 * file, in the logs folder and in another run's folder; a TCP and a UDP listener on the host's
 * loopback count connections; write targets outside the outputs are watched.
 *
 * Pass (default harness, sandboxed): 0 canaries read, 0 keys anywhere the worker can reach,
 * 0 connections but the proxy, 0 writes outside the outputs, and the card still closes. The same
 * worker with `sandbox: none` must leak (proof that the suite tests something).
 */

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const DIST = path.dirname(CLI);
const WORKER = fileURLToPath(new URL('./attack-worker.mjs', import.meta.url));
const ATTACKS_FILE = fileURLToPath(new URL('./attacks.mjs', import.meta.url));

const tag = randomBytes(6).toString('hex');
const CANARY = {
  home: `CANARY-HOME-${tag}`,
  config: `CANARY-CONFIG-${tag}`,
  key: `sk-ant-CANARY-KEY-${tag}`,
  extra: `CANARY-EXTRA-${tag}`,
  logs: `CANARY-LOGS-${tag}`,
  run: `CANARY-RUN-${tag}`,
};
const SECRETS = Object.values(CANARY);

const probe = sandboxProbe();
if (!probe.ok) console.warn(`\n*** test/security: the worker sandbox cannot start here (${probe.reason}): the attack suite is SKIPPED ***\n`);

// Host-side canaries the suite owns (created before, removed after).
const SSH_DIR = '/root/.ssh';
const SSH_KEY = path.join(SSH_DIR, 'id_board_canary');
const sshDirExisted = fs.existsSync(SSH_DIR);
const HOME_WRITE = `/root/.board-write-canary-${tag}`;
const TMP_WRITE = path.join(os.tmpdir(), `board-pwned-${tag}`);
const OTHER_RUN = fs.mkdtempSync(path.join(os.tmpdir(), 'board-run-other-'));

let tcpHits = 0;
let udpHits = 0;
let tcp: net.Server;
let udp: dgram.Socket;
let canaryPort = 0;

/** The model endpoint the proxy forwards to: records what it got, answers like Anthropic Messages. */
interface Upstream {
  url: string;
  seen: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}
async function startUpstream(): Promise<Upstream> {
  const seen: Upstream['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'fake', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 7, output_tokens: 3 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

beforeAll(async () => {
  if (!probe.ok) return;
  if (!fs.existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first');
  fs.mkdirSync(SSH_DIR, { recursive: true, mode: 0o700 });
  fs.writeFileSync(SSH_KEY, `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY.home}\n-----END OPENSSH PRIVATE KEY-----\n`, { mode: 0o600 });
  fs.writeFileSync(HOME_WRITE, 'original\n');
  fs.writeFileSync(path.join(OTHER_RUN, 'canary.txt'), `${CANARY.run}\n`);
  tcp = net.createServer((socket) => {
    tcpHits++;
    socket.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  canaryPort = (tcp.address() as net.AddressInfo).port;
  udp = dgram.createSocket('udp4');
  udp.on('message', () => udpHits++);
  await new Promise<void>((r) => udp.bind(canaryPort, '127.0.0.1', r));
});

afterAll(async () => {
  if (!probe.ok) return;
  fs.rmSync(SSH_KEY, { force: true });
  if (!sshDirExisted) fs.rmSync(SSH_DIR, { recursive: true, force: true });
  fs.rmSync(HOME_WRITE, { force: true });
  fs.rmSync(TMP_WRITE, { force: true });
  fs.rmSync(OTHER_RUN, { recursive: true, force: true });
  await new Promise<void>((r) => tcp.close(() => r()));
  udp.close();
});

interface Board {
  root: string;
  vault: string;
  config: string;
  privateEnv: string;
  logs: string;
  decoyDist: string;
}

/** A board whose only harness runs the attacker; `sandbox` is the harness's field (omitted = default). */
function makeBoard(upstream: string, sandbox: 'default' | 'none'): Board {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-sec-'));
  const vault = path.join(root, 'vault');
  const logs = path.join(root, 'logs');
  const config = path.join(root, 'board.yml');
  const privateEnv = path.join(root, 'secrets.env');
  for (const dir of ['KANBAN/pending', 'KANBAN/in-progress', 'KANBAN/done', 'KANBAN/scheduled', 'AGENTS/attacker', 'notes', 'out']) fs.mkdirSync(path.join(vault, dir), { recursive: true });
  fs.mkdirSync(path.join(root, 'harnesses/bin'), { recursive: true });
  fs.mkdirSync(logs, { recursive: true });
  fs.writeFileSync(path.join(logs, 'canary.txt'), `${CANARY.logs}\n`);
  fs.writeFileSync(config, `# ${CANARY.config}\nvault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: attack\nlogs: logs\nprivate_env: secrets.env\n`);
  fs.writeFileSync(privateEnv, `ANTHROPIC_API_KEY=${CANARY.key}\nEXTRA_SECRET=${CANARY.extra}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(root, 'models.yml'), 'attack:\n  minimum: fake\n  standard: fake\n  advanced: fake\n');
  fs.copyFileSync(WORKER, path.join(root, 'harnesses/bin/attack-worker.mjs'));
  fs.writeFileSync(path.join(root, 'harnesses/guard.mjs'), '// the suite proves the sandbox, not the guard\n');
  // A `board` on the harness's PATH for the unconfined run (inside the sandbox the board's thin client comes first).
  const shim = path.join(root, 'harnesses/bin/board');
  fs.writeFileSync(shim, `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(root, 'harnesses/attack.yml'),
    [
      'command: [node, "{harnesses}/bin/attack-worker.mjs"]',
      'prompt_template: "attack {card}"',
      'environment:',
      `  PATH: ${path.join(root, 'harnesses/bin')}:/usr/local/bin:/usr/bin:/bin`,
      `  ANTHROPIC_BASE_URL: ${upstream}`,
      'environment_from_private: [ANTHROPIC_API_KEY]',
      'credential_guard: guard.mjs',
      'timeout: 5m',
      ...(sandbox === 'none' ? ['sandbox: none'] : []),
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(vault, 'AGENTS/attacker/PROFILE.md'),
    '---\nname: attacker\nversion: 1\ndescription: Runs the attack list.\nfunction: attack\nhandles: [run the attacks]\nskills: []\n---\n\n# attacker\n',
  );
  fs.writeFileSync(path.join(vault, 'KANBAN/pending/attack.md'), '---\nfunction: attack\nrequest: run the attacks\ncreated: 2026-12-03 09:00\norigin: human\npaths: []\nattempts: 0\n---\n\nA hostile card.\n');
  fs.writeFileSync(path.join(vault, 'KANBAN/done/other.md'), '---\nfunction: attack\nrequest: somebody else\'s card\ncreated: 2026-12-01 09:00\norigin: human\npaths: [notes/x.md]\nattempts: 0\nclosed: 2026-12-01T10:00:00.000Z\n---\n\n## Record\n');
  // The unconfined run writes into the board's dist/: give it a decoy copy, never the real build.
  const decoyDist = sandbox === 'none' ? fs.mkdtempSync(path.join(os.tmpdir(), 'board-decoy-dist-')) : DIST;
  if (sandbox === 'none') fs.writeFileSync(path.join(decoyDist, 'cli.js'), '// decoy\n');
  const values = {
    home: '/root',
    config,
    config_dir: root,
    private_env: privateEnv,
    logs,
    other_run: OTHER_RUN,
    vault,
    kanban: path.join(vault, 'KANBAN'),
    harnesses: path.join(root, 'harnesses'),
    dist: decoyDist,
    canary_port: String(canaryPort),
    home_write_canary: HOME_WRITE,
    tmp_write_canary: TMP_WRITE,
  };
  fs.writeFileSync(path.join(vault, 'notes/attacks.json'), JSON.stringify(ATTACKS.map((a: { id: string; group: string; cmd: string }) => ({ ...a, cmd: materialize(a.cmd, values) }))));
  return { root, vault, config, privateEnv, logs, decoyDist };
}

function board(b: Board, ...args: string[]) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BOARD_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args, '--config', b.config], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Until the run is recorded as exited and its supervisor has ended: after the record it still
 * writes the run's provenance into logs/ (manifest, journal), which the test's clean-up would race.
 */
async function settle(b: Board, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const runs = path.join(b.vault, 'KANBAN/.runs');
  // A zombie (ended, not yet reaped by whoever inherited it) has ended too.
  const alive = (pid: number) => {
    if (!isProcessAlive(pid)) return false;
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
    return !/^\S+ \(.*\) Z/.test(stat);
  };
  for (;;) {
    const exited = (fs.existsSync(runs) ? fs.readdirSync(runs) : [])
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(runs, f), 'utf8')) as { state?: string; pid?: number })
      .find((r) => r.state === 'exited');
    if (exited && (typeof exited.pid !== 'number' || !alive(exited.pid))) return;
    if (Date.now() > deadline) throw new Error('the attack run did not end in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every file the worker could have written or the board shows, read without following links. */
function everythingReachable(b: Board): string {
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) parts.push(fs.readlinkSync(full));
      else if (entry.isFile()) parts.push(fs.readFileSync(full, 'utf8'));
    }
  };
  walk(b.vault);
  walk(path.join(b.logs, 'runs'));
  return parts.join('\n');
}

interface Outcome {
  results: { id: string; group: string; code: number | null; out: string }[];
  leaks: string[];
  writes: string[];
  connections: number;
  closed: boolean;
  upstreamKeys: string[];
}

async function attack(sandbox: 'default' | 'none'): Promise<Outcome> {
  const upstream = await startUpstream();
  tcpHits = 0;
  udpHits = 0;
  fs.writeFileSync(HOME_WRITE, 'original\n');
  fs.rmSync(TMP_WRITE, { force: true });
  const distBefore = createHash('sha256').update(fs.readFileSync(CLI)).digest('hex');
  const b = makeBoard(upstream.url, sandbox);
  try {
    const configBefore = fs.readFileSync(b.config, 'utf8');
    const tick = board(b, 'tick');
    expect(tick.code, tick.stderr).toBe(0);
    await settle(b);
    const results = JSON.parse(fs.readFileSync(path.join(b.vault, 'out/attacks.json'), 'utf8')) as Outcome['results'];
    const reachable = everythingReachable(b);
    const leaks = SECRETS.filter((s) => reachable.includes(s));
    const writes: string[] = [];
    if (fs.readFileSync(HOME_WRITE, 'utf8') !== 'original\n') writes.push('home canary changed');
    if (fs.existsSync(TMP_WRITE)) writes.push('host /tmp written');
    if (fs.readFileSync(b.config, 'utf8') !== configBefore) writes.push('config changed');
    if (fs.existsSync(path.join(b.vault, 'KANBAN/done/forged.md'))) writes.push('forged card in done/');
    if (fs.existsSync(path.join(b.vault, 'KANBAN/pending/forged.md'))) writes.push('forged card in pending/');
    if (fs.existsSync(path.join(b.vault, 'KANBAN/.runs/forged.json'))) writes.push('forged run record');
    if (fs.existsSync(path.join(b.logs, 'journal/2026-12-31.ndjson')) || fs.existsSync(path.join(b.logs, 'objects/ab/planted'))) writes.push('logs/ written');
    if (fs.existsSync(path.join(b.root, 'harnesses/planted.yml'))) writes.push('harness planted');
    if (fs.existsSync(path.join(OTHER_RUN, 'planted.txt'))) writes.push("another run's folder written");
    if (createHash('sha256').update(fs.readFileSync(CLI)).digest('hex') !== distBefore) writes.push("the board's dist/cli.js changed");
    if (sandbox === 'none' && fs.readFileSync(path.join(b.decoyDist, 'cli.js'), 'utf8') !== '// decoy\n') writes.push("the board's dist/ (decoy) changed");
    const card = path.join(b.vault, 'KANBAN/done/attack.md');
    const closed = fs.existsSync(card) && /paths:\s*\n?\s*-?\s*\[?"?out\/attacks\.json/.test(fs.readFileSync(card, 'utf8'));
    const upstreamKeys = upstream.seen.map((s) => String(s.headers['x-api-key'] ?? ''));
    return { results, leaks, writes, connections: tcpHits + udpHits, closed, upstreamKeys };
  } finally {
    await upstream.close();
    if (process.env.BOARD_KEEP_SECURITY_TESTS !== '1') fs.rmSync(b.root, { recursive: true, force: true });
    if (sandbox === 'none') fs.rmSync(b.decoyDist, { recursive: true, force: true });
  }
}

describe.skipIf(!probe.ok)('attacks from inside a real worker', () => {
  it(`the sandboxed worker (default harness) reads no canary, holds no key, connects nowhere, writes only its outputs, and closes its card (${ATTACKS.length} attacks)`, async () => {
    const o = await attack('default');
    expect(o.results).toHaveLength(ATTACKS.length + 1);
    expect(o.results.find((r) => r.id === 'model-call')?.code).toBe(200);
    expect(o.leaks, JSON.stringify(o.results.filter((r) => SECRETS.some((s) => r.out.includes(s))), null, 1)).toEqual([]);
    expect(o.writes).toEqual([]);
    expect(o.connections).toBe(0);
    expect(o.closed).toBe(true);
    // The model call went through the proxy, which added the real key; the worker only had a placeholder.
    expect(o.upstreamKeys).toContain(CANARY.key);
  }, 300_000);

  it('the same worker with `sandbox: none` leaks (the suite tests something)', async () => {
    const o = await attack('none');
    expect(o.leaks.length + o.writes.length + o.connections).toBeGreaterThan(0);
    // What the wall stops, named: canaries read, writes outside the outputs, connections.
    expect(o.leaks).toEqual(expect.arrayContaining([CANARY.home, CANARY.config, CANARY.logs, CANARY.run]));
    expect(o.writes.length).toBeGreaterThan(0);
    expect(o.connections).toBeGreaterThan(0);
  }, 300_000);
});

// The list stays what the issue asked: the guard's misses and at least 60 more.
describe('the attack list', () => {
  it('holds at least 99 attacks with unique ids', () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(99);
    expect(new Set(ATTACKS.map((a: { id: string }) => a.id)).size).toBe(ATTACKS.length);
    expect(fs.readFileSync(ATTACKS_FILE, 'utf8')).toContain('cat /r*/.s?h/id_*');
  });
});
