import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startVerbServer, type VerbRun } from '../../src/sandbox/verb-server.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { openJournal } from '../../src/journal/index.js';
import { snapshotTree } from '../helpers/vault.js';
import { CLAIM, board, claimedCard, readVault } from '../card/fixtures.js';

/**
 * The verbs channel end to end: the built thin client (dist/worker-board.js, `npm run build`
 * first) posts to a loopback port; a TCP→Unix bridge (what the sandbox's init does) carries it to
 * the supervisor's verb server, which runs the real CLI (dist/cli.js) as the run's verb.
 */

const DIST = fileURLToPath(new URL('../../dist', import.meta.url));
const CLIENT = path.join(DIST, 'worker-board.js');
const CLI = path.join(DIST, 'cli.cjs');
const CARD = 'mine.md';
const OTHER = 'other.md';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Channel {
  root: string;
  vault: string;
  run: VerbRun;
  url: string;
}

async function channel(over: Partial<VerbRun> = {}, limits: { maxOutputBytes?: number; timeoutMs?: number; boardCli?: string } = {}): Promise<Channel> {
  const { root, vault, layout } = board({
    [`KANBAN/in-progress/${CARD}`]: claimedCard('writer'),
    [`KANBAN/in-progress/${OTHER}`]: claimedCard('writer', '', '2026-12-02T09:58:00.000Z'),
    'outputs/post.md': '# Post\n',
  });
  const sockets = fs.mkdtempSync(path.join(os.tmpdir(), 'board-sock-'));
  const socketPath = path.join(sockets, 'verbs.sock');
  const run: VerbRun = {
    card: path.join(layout.inProgress, CARD),
    claim: CLAIM,
    vault,
    configFile: path.join(root, 'board.yml'),
    runId: 'mine-run-1',
    cause: 'ev-claim-1',
    ...over,
  };
  const server = await startVerbServer({ socketPath, run, boardCli: limits.boardCli ?? CLI, env: process.env, ...limits });
  cleanups.push(() => server.close());
  const port = await bridge(socketPath);
  return { root, vault, run, url: `http://127.0.0.1:${port}` };
}

/** 127.0.0.1:<port> piped to the Unix socket, one connection for one connection. */
async function bridge(socketPath: string): Promise<number> {
  const tcp = net.createServer((conn) => {
    const unix = net.connect(socketPath);
    conn.pipe(unix).pipe(conn);
    conn.on('error', () => unix.destroy());
    unix.on('error', () => conn.destroy());
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
  return (tcp.address() as net.AddressInfo).port;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The thin client as a worker runs it; async, since the server answers from this very process. */
function client(args: string[], env: NodeJS.ProcessEnv, program = CLIENT): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [program, ...args], { env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const data = (text: string) => parseFrontMatter(text).data;

describe('the verbs channel', () => {
  it("carries out note and close as the run's verbs, journaled with its run and cause", async () => {
    const c = await channel();
    const note = await client(['card', 'note', CARD, 'writer: admission passed'], { BOARD_VERBS_URL: c.url });
    expect(note).toMatchObject({ code: 0 });
    expect(readVault(c.vault, `KANBAN/in-progress/${CARD}`)).toContain('writer: admission passed');

    const close = await client(['card', 'close', c.run.card, '--path', 'outputs/post.md'], { BOARD_VERBS_URL: c.url });
    expect(close.stderr).toBe('');
    expect(close.code).toBe(0);
    expect(data(readVault(c.vault, `KANBAN/done/${CARD}`))).toMatchObject({ paths: ['outputs/post.md'] });

    const { events } = await openJournal(path.join(c.root, 'logs')).read();
    const mine = events.filter((e) => e.card === CARD);
    expect(mine.map((e) => e.kind)).toEqual(['card:noted', 'card:closed']);
    for (const e of mine) expect(e).toMatchObject({ actor: 'writer', run: 'mine-run-1', cause: 'ev-claim-1' });
  });

  it.each([
    ['a verb on another card', ['card', 'note', OTHER, 'hello'], /only its own card, mine\.md/],
    ['a verb on another card by path', ['card', 'close', `KANBAN/in-progress/${OTHER}`, '--empty', 'x'], /only its own card/],
    ['tick', ['tick'], /"board tick" is not one of the verbs/],
    ['card cancel', ['card', 'cancel', CARD, '--reason', 'x'], /"board card cancel" is not one of the verbs/],
    ['unblock', ['unblock', CARD], /"board unblock mine\.md" is not one of the verbs/],
    ['another config', ['card', 'note', CARD, 'x', '--config', '/tmp/evil.yml'], /--config is not allowed/],
    ['another vault', ['card', 'show', CARD, '--vault=/'], /--vault is not allowed/],
  ])('refuses %s with exit 2, writing nothing', async (_what, args, message) => {
    const c = await channel();
    const before = snapshotTree(c.root);
    const ran = await client(args, { BOARD_VERBS_URL: c.url });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/refused by the verbs channel/);
    expect(ran.stderr).toMatch(message);
    expect(snapshotTree(c.root)).toEqual(before);
  });

  it("takes whose verb it is from the run, never from the worker's environment", async () => {
    const c = await channel();
    const forged = { BOARD_VERBS_URL: c.url, BOARD_CARD: path.join(c.vault, 'KANBAN/in-progress', OTHER), BOARD_CLAIM: '2026-12-02T09:58:00.000Z', BOARD_RUN: 'forged', BOARD_CAUSE: 'forged' };
    // The forged card's claim does not open the other card.
    const other = await client(['card', 'note', OTHER, 'x'], forged);
    expect(other.code).toBe(2);
    // The run's own verb is still the run's: its claim, its run id, its cause.
    expect((await client(['card', 'note', CARD, 'mine'], forged)).code).toBe(0);
    const noted = (await openJournal(path.join(c.root, 'logs')).read()).events.find((e) => e.kind === 'card:noted');
    expect(noted).toMatchObject({ card: CARD, run: 'mine-run-1', cause: 'ev-claim-1' });
  });

  it("fences with the run's claim: a run whose claim was lost cannot note, whatever the worker says", async () => {
    const c = await channel({ claim: '2026-12-01T00:00:00.000Z' });
    const before = snapshotTree(c.root);
    const ran = await client(['card', 'note', CARD, 'x'], { BOARD_VERBS_URL: c.url, BOARD_CLAIM: CLAIM });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/the claim 2026-12-01T00:00:00.000Z is no longer held/);
    // Nothing written but the board's own note of the refusal (the run's reason, in KANBAN/.runs/).
    const after = new Map([...snapshotTree(c.root)].filter(([f]) => !f.startsWith('vault/KANBAN/.runs/')));
    expect(after).toEqual(before);
    expect(fs.readdirSync(path.join(c.vault, 'KANBAN/.runs'))).toEqual([expect.stringMatching(/\.refused$/)]);
  });

  it('shows any card and answers help', async () => {
    const c = await channel();
    const show = await client(['card', 'show', OTHER, '--json'], { BOARD_VERBS_URL: c.url });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ card: OTHER });
    const help = await client(['card', '--help'], { BOARD_VERBS_URL: c.url });
    expect(help.stdout).toMatch(/note/);
  });

  it('bounds the output it passes back', async () => {
    const c = await channel({}, { maxOutputBytes: 64 });
    const show = await client(['card', 'show', CARD], { BOARD_VERBS_URL: c.url });
    expect(show.code).toBe(0);
    expect(Buffer.byteLength(show.stdout)).toBeLessThanOrEqual(64);
    expect(show.stderr).toMatch(/output was cut at 64 bytes \(\d+ more dropped\)/);
  });

  it('stops a verb that runs past its time bound', async () => {
    const hang = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'board-hang-')), 'hang.mjs');
    fs.writeFileSync(hang, 'setInterval(() => {}, 1000);\n');
    const c = await channel({}, { timeoutMs: 300, boardCli: hang });
    const ran = await client(['card', 'show', CARD], { BOARD_VERBS_URL: c.url });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/ran longer than 300 ms and was stopped/);
  });

  it('runs where the sandbox binds it: a file named board, no .js, no package.json, started by its shebang', async () => {
    const c = await channel();
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'board-bin-'));
    const board = path.join(bin, 'board');
    fs.copyFileSync(CLIENT, board);
    fs.chmodSync(board, 0o755);
    const ran = await new Promise<Ran>((resolve) =>
      execFile(board, ['card', 'note', CARD, 'from the bound client'], { env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, BOARD_VERBS_URL: c.url } }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(readVault(c.vault, `KANBAN/in-progress/${CARD}`)).toContain('from the bound client');
  });

  it('says so in one line and exits 1 when the channel is missing or down', async () => {
    const missing = await client(['card', 'show', CARD], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^board: BOARD_VERBS_URL is not set[^\n]*\n$/);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await client(['card', 'show', CARD], { BOARD_VERBS_URL: `http://127.0.0.1:${port}` });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^board: the verbs channel at http:\/\/127\.0\.0\.1:\d+ is down \(ECONNREFUSED\)[^\n]*\n$/);
  });
});
