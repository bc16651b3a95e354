import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runIdFor } from '../../src/core/zombies.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { makeTree, profile } from '../helpers/vault.js';

/**
 * One board shared by several hosts (issue 14). Each host is a network namespace with its own
 * hostname, PID and mount namespace (test/multihost/hosts.sh), mounting the board over sshfs from
 * an sshd in a namespace of its own, and running `board tick` in a loop, as a timer would. Workers
 * close their cards with `board card close`. Root, FUSE and network namespaces are needed; the
 * test installs openssh-server and sshfs from Debian where missing, and skips loudly where the
 * machine cannot. Every namespace, mount and daemon is removed afterwards, also on failure.
 *
 * Run: `npm run build && npm run test:multihost` (several minutes: two faults each wait out the
 * lock's 30 s staleness).
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HOSTS = path.join(HERE, 'hosts.sh');
const CLI = path.resolve(HERE, '../../dist/cli.cjs');
/** The census's floor, the same script bench/run.mjs times (a plain read of the same bytes). */
const FLOOR = path.resolve(HERE, '../../bench/floor.mjs');
/** What a shared board needs (docs/scale.md): no attribute, name or directory cache on the client. */
const SHARED_MOUNT = 'dir_cache=no,attr_timeout=0,entry_timeout=0,negative_timeout=0';
const STALE_MS = 30_000;
const CARDS = Number(process.env.ABT_MH_CARDS ?? 210);

function cannotRun(): string | undefined {
  if (!fs.existsSync(CLI)) return `${CLI} is missing: npm run build first`;
  let check = spawnSync(HOSTS, ['check'], { encoding: 'utf8' });
  if (check.status !== 0 && /missing (sshfs|\/usr\/sbin\/sshd|fusermount3)/.test(check.stdout) && process.getuid?.() === 0) {
    // The test's own setup: the Debian packages it needs, where the machine lacks them.
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['install', '-y', '-qq', 'openssh-server', 'sshfs'], { env, stdio: 'ignore' });
    check = spawnSync(HOSTS, ['check'], { encoding: 'utf8' });
  }
  return check.status === 0 ? undefined : `this machine cannot run it: ${check.stdout.trim() || check.stderr.trim()}`;
}

const skip = cannotRun();
if (skip) console.warn(`\n*** MULTI-HOST TEST SKIPPED: ${skip} ***\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Host {
  readonly index: number;
  readonly name: string;
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
}

interface Takeover {
  readonly host: number;
  readonly why: string;
  readonly previous?: { pid: number; host: string; pidns?: string; token?: string };
}

/** One shared board and its hosts, from creation to teardown. */
class Cluster {
  readonly dir = fs.mkdtempSync('/tmp/abt-mh-');
  readonly exportDir = path.join(this.dir, 'export');
  /** Where every host mounts the board: the same path on each, like a real shared mount. */
  readonly mount = path.join(this.dir, 'mnt');
  readonly kanban = path.join(this.exportDir, 'vault/KANBAN');
  readonly hosts: Host[] = [];
  private up = false;

  /**
   * `zombieAfter` also bounds the start grace (a claim whose round died before its worker started
   * goes back after min(5 min, zombie_after)): the SIGKILL scenario shortens it to keep the test short.
   */
  constructor(readonly cards: number, readonly zombieAfter = '2h', readonly workSeconds = 0) {
    const files: Record<string, string> = {
      'board.yml': `vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: mh\nlogs: logs\nmax_dispatches_per_round: 8\nzombie_after: ${zombieAfter}\n`,
      // The worker keeps a ledger next to the mount, outside every host's view of the board: it runs
      // unconfined (sandbox: none). These scenarios prove the board's transitions across hosts;
      // test/security and test/clients prove the sandbox.
      'harnesses/mh.yml': `command: ["/bin/sh", "${this.dir}/worker.sh"]\nprompt_template: "card={card}"\ncredential_guard: guard.sh\nsandbox: none\n`,
      'harnesses/guard.sh': '#!/bin/sh\nexit 0\n',
      'models.yml': 'mh:\n  minimum: m\n  standard: m\n  advanced: m\n',
      'vault/AGENTS/worker/PROFILE.md': profile('worker', 'function: work\nhandles: [job]\nskills: [work]'),
      'vault/KANBAN/in-progress/.keep': '',
      'vault/KANBAN/done/.keep': '',
    };
    for (let i = 1; i <= cards; i++) {
      files[`vault/KANBAN/pending/${cardName(i)}`] =
        `---\nfunction: work\nrequest: Do job number ${i}\ncreated: 2026-12-01 09:00\norigin: human\npaths: []\nattempts: 0\n---\n\nJob ${i}.\n`;
    }
    makeTree(files, this.exportDir);
    fs.writeFileSync(path.join(this.dir, 'ledger'), '');
    // The worker: says it started (with its host's PID namespace), closes its card, says how that went.
    fs.writeFileSync(
      path.join(this.dir, 'worker.sh'),
      `#!/bin/sh
ns=$(readlink /proc/self/ns/pid)
card=$(basename "$BOARD_CARD")
echo "start $card $ns" >> ${this.dir}/ledger
${workSeconds > 0 ? `sleep ${workSeconds}\n` : ''}node "$BOARD_BIN" card close "$BOARD_CARD" --empty "multi-host test worker" >> ${this.dir}/worker-$card.log 2>&1
rc=$?
echo "close $card $ns $rc" >> ${this.dir}/ledger
exit $rc
`,
    );
    // A host: ticks in a loop, like a timer, until told to stop; then waits for its workers.
    fs.writeFileSync(
      path.join(this.dir, 'loop.sh'),
      `#!/bin/bash
i=$1
readlink /proc/self/ns/pid > ${this.dir}/pidns-$i
while [ ! -e ${this.dir}/stop ]; do
  if [ -e ${this.dir}/pause-$i ]; then sleep 0.2; continue; fi
  node ${CLI} tick --config ${this.mount}/board.yml >> ${this.dir}/tick-$i.out 2>> ${this.dir}/tick-$i.err
  echo "exit $? $(date +%s%3N)" >> ${this.dir}/tick-$i.out
  sleep 0.$(( RANDOM % 5 ))
done
while pgrep -f "supervisor\.c?js" > /dev/null; do sleep 0.2; done
`,
    );
  }

  start(names: readonly string[], mountOptions = SHARED_MOUNT, command?: readonly string[]): void {
    run(HOSTS, ['server', this.dir, String(names.length)]);
    this.up = true;
    names.forEach((name, i) => {
      const index = i + 1;
      const child = spawn(HOSTS, ['host', this.dir, String(index), name, this.exportDir, this.mount, mountOptions, '--', ...(command ?? ['bash', path.join(this.dir, 'loop.sh'), String(index)])], {
        stdio: ['ignore', 'ignore', fs.openSync(path.join(this.dir, `host-${index}.err`), 'a')],
      });
      this.hosts.push({ index, name, process: child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) });
    });
  }

  /** The PID namespace of host `index` (its loop writes it first thing). */
  pidns(index: number): string | undefined {
    try {
      return fs.readFileSync(path.join(this.dir, `pidns-${index}`), 'utf8').trim();
    } catch {
      return undefined;
    }
  }

  hostOfPidns(pidns: string | undefined): number | undefined {
    return this.hosts.find((h) => this.pidns(h.index) === pidns)?.index;
  }

  list(state: string): string[] {
    try {
      return fs.readdirSync(path.join(this.kanban, state)).filter((n) => n.endsWith('.md'));
    } catch {
      return [];
    }
  }

  /** Cards in more than one state folder. Listed against the flow (done first), so a move between two listings can only hide a card, never double it. */
  doubles(): string[] {
    const seen = new Map<string, number>();
    for (const state of ['done', 'in-progress', 'pending']) for (const n of this.list(state)) seen.set(n, (seen.get(n) ?? 0) + 1);
    return [...seen].filter(([, count]) => count > 1).map(([n]) => n);
  }

  owner(): { pid: number; host: string; pidns?: string; token?: string } | undefined {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.kanban, '.board.lock/owner.json'), 'utf8')) as { pid: number; host: string; pidns?: string; token?: string };
    } catch {
      return undefined;
    }
  }

  lockMtimeMs(): number | undefined {
    try {
      return fs.statSync(path.join(this.kanban, '.board.lock')).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /** A card's `claimed` while it is in in-progress/. */
  claimOf(card: string): string | undefined {
    try {
      const claimed = parseFrontMatter(fs.readFileSync(path.join(this.kanban, 'in-progress', card), 'utf8')).data.claimed;
      return typeof claimed === 'string' ? claimed : undefined;
    } catch {
      return undefined;
    }
  }

  /** The claims in in-progress/ whose run was started by a supervisor of host `index`. */
  claimsOf(index: number): { card: string; claim: string }[] {
    const ns = this.pidns(index);
    const out: { card: string; claim: string }[] = [];
    for (const card of this.list('in-progress')) {
      try {
        const data = parseFrontMatter(fs.readFileSync(path.join(this.kanban, 'in-progress', card), 'utf8')).data;
        if (typeof data.claimed !== 'string') continue;
        const record = JSON.parse(fs.readFileSync(path.join(this.kanban, '.runs', `${runIdFor(card, data.claimed, Number(data.attempts ?? 0))}.json`), 'utf8')) as { state: string; pidns?: string };
        if (record.state === 'started' && record.pidns === ns) out.push({ card, claim: data.claimed });
      } catch {
        // moved meanwhile, or no record yet
      }
    }
    return out;
  }

  /** The processes (pids as this machine sees them) in host `index`'s PID namespace. */
  processesOf(index: number): number[] {
    const ns = this.pidns(index);
    const pids: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readlinkSync(`/proc/${entry}/ns/pid`) === ns) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  /** This machine's pid of the process host `index` knows as `pid`. */
  globalPid(index: number, pid: number): number | undefined {
    for (const g of this.processesOf(index)) {
      try {
        const nspid = /^NSpid:\s+(.+)$/m.exec(fs.readFileSync(`/proc/${g}/status`, 'utf8'))?.[1]?.trim().split(/\s+/);
        if (nspid && Number(nspid[nspid.length - 1]) === pid) return g;
      } catch {
        // gone meanwhile
      }
    }
    return undefined;
  }

  /** Wait until every card is in done/, checking all along that none is in two folders. */
  async runToTheEnd(timeoutMs: number, during?: () => Promise<void>): Promise<{ persistentDoubles: string[] }> {
    const persistentDoubles = new Set<string>();
    let suspects: string[] = [];
    const watcher = (async () => {
      const deadline = Date.now() + timeoutMs;
      let done = 0;
      let progressAt = Date.now();
      while (this.list('done').length < this.cards) {
        // No card done for longer than any fault here makes a card wait (the lock's staleness, the
        // start grace of a claim whose round died): stuck, say where.
        if (this.list('done').length > done) [done, progressAt] = [this.list('done').length, Date.now()];
        if (Date.now() - progressAt > 240_000) throw new Error(`stuck: ${done} of ${this.cards} cards done, none for 240 s; see ${this.dir}`);
        if (Date.now() > deadline) throw new Error(`timed out: ${this.list('done').length} of ${this.cards} cards done (pending ${this.list('pending').length}, in-progress ${this.list('in-progress').length}); see ${this.dir}`);
        // A double still there 250 ms later is a card in two folders, not a move between two listings.
        const now = this.doubles();
        for (const n of now.filter((n) => suspects.includes(n))) persistentDoubles.add(n);
        suspects = now;
        await sleep(250);
      }
    })();
    await Promise.all([watcher, during?.()]);
    return { persistentDoubles: [...persistentDoubles] };
  }

  /** Stop the loops, let the workers finish, and take everything down. Safe to call twice. */
  async stop(): Promise<void> {
    fs.writeFileSync(path.join(this.dir, 'stop'), '');
    await Promise.race([Promise.all(this.hosts.map((h) => h.exited)), sleep(60_000)]);
    this.down();
  }

  down(): void {
    for (const h of this.hosts) {
      for (const pid of this.processesOf(h.index)) {
        try {
          process.kill(pid, 'SIGCONT');
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      h.process.kill('SIGKILL');
    }
    if (this.up) spawnSync(HOSTS, ['down', this.dir], { stdio: 'ignore' });
    this.up = false;
  }

  ledger(): { starts: Map<string, string[]>; closes: Map<string, { ns: string; rc: number }[]> } {
    const starts = new Map<string, string[]>();
    const closes = new Map<string, { ns: string; rc: number }[]>();
    for (const line of fs.readFileSync(path.join(this.dir, 'ledger'), 'utf8').split('\n').filter(Boolean)) {
      const [what, card, ns, rc] = line.split(' ') as [string, string, string, string?];
      if (what === 'start') starts.set(card, [...(starts.get(card) ?? []), ns]);
      else closes.set(card, [...(closes.get(card) ?? []), { ns, rc: Number(rc) }]);
    }
    return { starts, closes };
  }

  /** Every tick's exit code per host, and every lock takeover a tick logged. */
  ticks(): { exits: Map<number, number[]>; takeovers: Takeover[]; releaseErrors: string[] } {
    const exits = new Map<number, number[]>();
    const takeovers: Takeover[] = [];
    const releaseErrors: string[] = [];
    for (const h of this.hosts) {
      const out = readOr(path.join(this.dir, `tick-${h.index}.out`));
      exits.set(h.index, [...out.matchAll(/^exit (\d+) /gm)].map((m) => Number(m[1])));
      for (const line of readOr(path.join(this.dir, `tick-${h.index}.err`)).split('\n')) {
        if (!line.startsWith('{')) continue;
        let entry: { msg?: string; why?: string; previous?: Takeover['previous'] };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.msg?.startsWith('took over')) takeovers.push({ host: h.index, why: entry.why ?? '', ...(entry.previous ? { previous: entry.previous } : {}) });
        if (entry.msg === 'could not release the round lock') releaseErrors.push(line);
      }
    }
    return { exits, takeovers, releaseErrors };
  }

  /** Kept after a failure, to be looked at (files only: namespaces, mounts and daemons are gone). */
  keep = false;

  remove(): void {
    this.down();
    if (this.keep) console.warn(`[multihost] kept ${this.dir} for a look: remove it when done`);
    else fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function cardName(i: number): string {
  return `job-${String(i).padStart(4, '0')}.md`;
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function run(file: string, args: string[]): void {
  const result = spawnSync(file, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
}

const clusters: Cluster[] = [];
/** Each scenario's hosts go before the next one starts, whatever happened. */
afterEach((context) => {
  const failed = context.task.result?.state === 'fail';
  for (const c of clusters.splice(0)) {
    c.keep = failed;
    c.remove();
  }
});
afterAll(() => {
  for (const c of clusters.splice(0)) c.remove();
});

function cluster(cards: number, zombieAfter?: string, workSeconds?: number): Cluster {
  const c = new Cluster(cards, zombieAfter, workSeconds);
  clusters.push(c);
  return c;
}
// Also on an interrupted run: no namespace, mount or daemon outlives the test.
process.once('exit', () => {
  for (const c of clusters) c.down();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const c of clusters) c.down();
    process.exit(130);
  });
}

/** Everything every scenario must end with: each card done exactly once, by one worker, on some host. */
function expectEveryCardDoneOnce(c: Cluster, persistentDoubles: string[]): void {
  expect(persistentDoubles, 'cards seen in two folders').toEqual([]);
  expect(c.doubles()).toEqual([]);
  expect(c.list('pending')).toEqual([]);
  expect(c.list('in-progress')).toEqual([]);
  const all = Array.from({ length: c.cards }, (_, i) => cardName(i + 1));
  expect(c.list('done').sort()).toEqual(all);
  const { starts, closes } = c.ledger();
  const startedTwice = all.filter((n) => (starts.get(n)?.length ?? 0) !== 1);
  expect(startedTwice.map((n) => `${n}: ${starts.get(n)?.length ?? 0} starts`), 'cards whose worker started other than once').toEqual([]);
  const badCloses = all.filter((n) => closes.get(n)?.length !== 1 || closes.get(n)![0]!.rc !== 0);
  expect(badCloses.map((n) => `${n}: ${JSON.stringify(closes.get(n))}`), 'cards not closed exactly once by their worker').toEqual([]);
  // Every card's Record shows one claim and one close.
  for (const n of all) {
    const text = fs.readFileSync(path.join(c.kanban, 'done', n), 'utf8');
    expect(text.match(/^closed: /gm)?.length, n).toBe(1);
  }
}

function expectEveryHostWorked(c: Cluster): Map<number, number> {
  const perHost = new Map<number, number>();
  for (const [, nss] of c.ledger().starts) for (const ns of nss) {
    const host = c.hostOfPidns(ns);
    if (host !== undefined) perHost.set(host, (perHost.get(host) ?? 0) + 1);
  }
  for (const h of c.hosts) expect(perHost.get(h.index) ?? 0, `cards worked by host ${h.index} (${h.name})`).toBeGreaterThan(0);
  return perHost;
}

function report(title: string, c: Cluster, perHost: Map<number, number>, extra = ''): void {
  const { exits, takeovers } = c.ticks();
  const ticks = [...exits].map(([h, e]) => `host ${h}: ${e.length} ticks (${e.filter((x) => x !== 0).length} failed), ${perHost.get(h) ?? 0} cards`).join('; ');
  console.log(`[multihost] ${title}: ${c.cards} cards; ${ticks}; ${takeovers.length} takeovers${extra}`);
}

/** Kill `signal` to every process of host `index`, or only to `pid` (its own pid number). */
function signalHost(c: Cluster, index: number, signal: NodeJS.Signals): void {
  for (const pid of c.processesOf(index)) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

/** Wait until host `index` holds the round lock; its owner then. */
async function whenHolding(c: Cluster, index: number, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const owner = c.owner();
    if (owner && owner.pidns === c.pidns(index)) return owner;
    if (Date.now() > deadline) throw new Error(`host ${index} never held the lock`);
    await sleep(10);
  }
}

describe.skipIf(skip !== undefined)('one board, several hosts over sshfs', () => {
  /** Hosts ticking the board to its end: every card done once, no takeover, no failed tick, every host worked. */
  async function cleanRun(hosts: string[], cards: number, label: string) {
    const c = cluster(cards);
    c.start(hosts);
    const { persistentDoubles } = await c.runToTheEnd(600_000);
    await c.stop();
    expectEveryCardDoneOnce(c, persistentDoubles);
    const perHost = expectEveryHostWorked(c);
    const { exits, takeovers, releaseErrors } = c.ticks();
    expect(takeovers).toEqual([]);
    expect(releaseErrors).toEqual([]);
    for (const [h, codes] of exits) expect(codes.filter((x) => x !== 0), `failed ticks on host ${h}`).toEqual([]);
    report(label, c, perHost);
  }

  it(`three hosts with distinct hostnames share ${CARDS} cards: each done once, no takeover, every host worked`, async () => {
    await cleanRun(['abt-alpha', 'abt-beta', 'abt-gamma'], CARDS, 'distinct hostnames');
  }, 900_000);

  it('two hosts with the same hostname (containers): no pid judged across namespaces, no takeover', async () => {
    await cleanRun(['abt-twin', 'abt-twin'], Math.min(CARDS, 120), 'same hostname');
  }, 900_000);

  it('a holder SIGKILLed mid-round, its host down: another host takes over only once the lock is stale', async () => {
    // A claim the killed round made but never started goes back after the start grace,
    // min(5 min, zombie_after): 90 s here (workers take seconds; none is frozen in this scenario).
    const c = cluster(Math.min(CARDS, 80), '90s');
    c.start(['abt-alpha', 'abt-beta']);
    let killed: { token?: string; at: number; mtime: number } | undefined;
    let takenAt: number | undefined;
    const { persistentDoubles } = await c.runToTheEnd(600_000, async () => {
      while (c.list('done').length < 10) await sleep(100);
      const owner = await whenHolding(c, 1);
      // The host goes down with its round: no more ticks from it while the others wait.
      fs.writeFileSync(path.join(c.dir, 'pause-1'), '');
      const pid = c.globalPid(1, owner.pid);
      const mtime = c.lockMtimeMs() ?? Date.now();
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
      killed = { ...(owner.token ? { token: owner.token } : {}), at: Date.now(), mtime };
      while (c.owner()?.token === owner.token || c.owner() === undefined) await sleep(20);
      takenAt = Date.now();
      fs.rmSync(path.join(c.dir, 'pause-1'));
    });
    await c.stop();
    expectEveryCardDoneOnce(c, persistentDoubles);
    expect(killed).toBeDefined();
    // Not before the lock was stale: 30 s after its last refresh (1 s of mtime granularity allowed).
    expect(takenAt! - killed!.mtime).toBeGreaterThanOrEqual(STALE_MS - 1000);
    const { takeovers } = c.ticks();
    expect(takeovers.length).toBeGreaterThanOrEqual(1);
    for (const t of takeovers) {
      expect(t.previous?.token, `takeover by host ${t.host}: ${t.why}`).toBe(killed!.token);
      expect(t.host).toBe(2);
      expect(t.why).toMatch(/^stale/);
    }
    const perHost = expectEveryHostWorked(c);
    report('holder SIGKILLed', c, perHost, `; taken over ${((takenAt! - killed!.mtime) / 1000).toFixed(1)} s after its last refresh`);
  }, 900_000);

  it('a host frozen (SIGSTOP) past the lock\'s staleness, then resumed: taken over once stale, no harm when it wakes', async () => {
    const c = cluster(Math.min(CARDS, 80));
    c.start(['abt-alpha', 'abt-beta']);
    let frozen: { token?: string; mtime: number } | undefined;
    let takenAt: number | undefined;
    const { persistentDoubles } = await c.runToTheEnd(600_000, async () => {
      while (c.list('done').length < 10) await sleep(100);
      const owner = await whenHolding(c, 2);
      const mtime = c.lockMtimeMs() ?? Date.now();
      signalHost(c, 2, 'SIGSTOP');
      frozen = { ...(owner.token ? { token: owner.token } : {}), mtime };
      while (c.owner()?.token === owner.token || c.owner() === undefined) await sleep(20);
      takenAt = Date.now();
      await sleep(5000);
      signalHost(c, 2, 'SIGCONT');
    });
    await c.stop();
    expectEveryCardDoneOnce(c, persistentDoubles);
    expect(takenAt! - frozen!.mtime).toBeGreaterThanOrEqual(STALE_MS - 1000);
    const { takeovers } = c.ticks();
    for (const t of takeovers) {
      expect(t.previous?.token, `takeover by host ${t.host}: ${t.why}`).toBe(frozen!.token);
      expect(t.host).toBe(1);
      expect(t.why).toMatch(/^stale/);
    }
    const perHost = expectEveryHostWorked(c);
    report('host frozen', c, perHost, `; taken over ${((takenAt! - frozen!.mtime) / 1000).toFixed(1)} s after its last refresh`);
  }, 900_000);

  it('a host SIGKILLed (supervisors and workers with it) while holding claims: every claim back within 90 s by its lease, every card done once', async () => {
    // zombie_after stays 2 h: only the leases (lease_stale_after 60 s) can bring these cards back in time.
    const c = cluster(Math.min(CARDS, 32), '2h', 12);
    c.start(['abt-alpha', 'abt-beta']);
    let victims: { card: string; claim: string }[] = [];
    let killedAt = 0;
    const backAfter = new Map<string, number>();
    const { persistentDoubles } = await c.runToTheEnd(600_000, async () => {
      // Host 1 goes quiet between two rounds (so no claim of it lacks its supervisor), holding claims
      // whose workers run; then everything in it dies at once, its mount with it.
      while (c.claimsOf(1).length === 0) await sleep(100);
      fs.writeFileSync(path.join(c.dir, 'pause-1'), '');
      while (c.processesOf(1).some((pid) => readOr(`/proc/${pid}/cmdline`).includes(' tick') || readOr(`/proc/${pid}/cmdline`).includes('\0tick\0'))) await sleep(50);
      await sleep(1000);
      victims = c.claimsOf(1);
      signalHost(c, 1, 'SIGKILL');
      killedAt = Date.now();
      // Each victim's claim leaves in-progress/ (reclaimed to pending/, and then perhaps claimed anew).
      while (backAfter.size < victims.length && Date.now() - killedAt < 180_000) {
        for (const v of victims) if (!backAfter.has(v.card) && c.claimOf(v.card) !== v.claim) backAfter.set(v.card, Date.now() - killedAt);
        await sleep(100);
      }
    });
    await c.stop();
    expect(victims.length, 'claims host 1 held when it died').toBeGreaterThan(0);
    const slowest = Math.max(...victims.map((v) => backAfter.get(v.card) ?? Infinity));
    expect(slowest, `every claim of the dead host back in pending/ within 90 s: ${JSON.stringify([...backAfter])}`).toBeLessThanOrEqual(90_000);
    // Done once each: one folder, one close that succeeded; a victim's worker started on the dead host and once more on the other.
    expect(persistentDoubles, 'cards seen in two folders').toEqual([]);
    const all = Array.from({ length: c.cards }, (_, i) => cardName(i + 1));
    expect(c.list('done').sort()).toEqual(all);
    expect(c.list('pending')).toEqual([]);
    expect(c.list('in-progress')).toEqual([]);
    const { starts, closes } = c.ledger();
    const dead = c.pidns(1);
    for (const n of all) {
      expect(closes.get(n)?.filter((x) => x.rc === 0).length, `${n}: closes ${JSON.stringify(closes.get(n))}`).toBe(1);
      expect(starts.get(n)?.filter((ns) => ns !== dead).length ?? 0, `${n}: worker starts on living hosts`).toBeLessThanOrEqual(1);
      const text = fs.readFileSync(path.join(c.kanban, 'done', n), 'utf8');
      expect(text.match(/^closed: /gm)?.length, n).toBe(1);
    }
    for (const v of victims) {
      const text = fs.readFileSync(path.join(c.kanban, 'done', v.card), 'utf8');
      expect(text, v.card).toMatch(/board: lease went stale: its supervisor on abt-alpha \(pid \d+\) has not refreshed it for \d+ s \(lease_stale_after 60 s\); its host is gone or cut off from the board; returned to pending\/ \(attempt 1 of 3\)/);
      expect(parseFrontMatter(text).data.attempts, v.card).toBe(1);
    }
    console.log(`[multihost] dead host: ${c.cards} cards; host 1 SIGKILLed holding ${victims.length} claims; back in pending/ after ${[...backAfter.values()].map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
  }, 900_000);

  // Opt-in (ABT_MH_SSHFS_BENCH=1): a measurement for bench/results.json (`sshfs`), not a test of
  // behaviour. One host, the board over sshfs with caching off: one `board tick` at 1k and at 10k
  // cards (the first, which journals every waiting card's verdict, and the next), next to the floor
  // of the same reads over the same mount (every profile's and pending card's bytes, as in bench/run.mjs).
  // For A/B runs: ABT_MH_SSHFS_SIZES (default 1000,10000), ABT_MH_CLI (another build's dist/cli.js,
  // e.g. a copy of the last commit's), ABT_MH_TICK_LOG (a file that keeps the ticks' logs).
  it.runIf(process.env.ABT_MH_SSHFS_BENCH === '1')('sshfs: one round at 1k and 10k cards next to the floor of the same reads', async () => {
    const rows: Record<string, unknown>[] = [];
    const sizes = (process.env.ABT_MH_SSHFS_SIZES ?? '1000,10000').split(',').map(Number);
    for (const cards of sizes) {
      const c = cluster(cards);
      const ms = (name: string) => `s=$(date +%s%3N); ${name}; echo "$(( $(date +%s%3N) - s ))"`;
      const floorCmd = `node ${FLOOR} ${c.mount}/vault > /dev/null`;
      const tickCmd = `node ${process.env.ABT_MH_CLI ?? CLI} tick --config ${c.mount}/board.yml > /dev/null 2>> ${process.env.ABT_MH_TICK_LOG ?? `${c.dir}/bench.err`}`;
      const script = [
        floorCmd, // untimed: the server's page cache warm for both
        `f1=$(${ms(floorCmd)})`,
        `t1=$(${ms(tickCmd)})`,
        `t2=$(${ms(tickCmd)})`,
        `f2=$(${ms(floorCmd)})`,
        `echo "$f1 $t1 $t2 $f2" > ${c.dir}/bench.out`,
        // [d]: the pattern must not match this script's own command line, which holds it.
        "while pgrep -f '[d]ist/supervisor[.]c?js' > /dev/null; do sleep 0.2; done",
      ].join('\n');
      c.start(['abt-bench'], SHARED_MOUNT, ['bash', '-c', script]);
      expect(await c.hosts[0]!.exited).toBe(0);
      const [f1, t1, t2, f2] = readOr(path.join(c.dir, 'bench.out')).trim().split(' ').map(Number) as [number, number, number, number];
      const floorMs = Math.min(f1, f2);
      rows.push({ cards, profiles: 1, floorMs, firstTickMs: t1, nextTickMs: t2, firstRatio: Math.round((t1 / floorMs) * 100) / 100, nextRatio: Math.round((t2 / floorMs) * 100) / 100 });
      console.log(`[multihost] sshfs, ${cards} cards: floor ${floorMs} ms; first tick ${t1} ms (${(t1 / floorMs).toFixed(2)}×), next tick ${t2} ms (${(t2 / floorMs).toFixed(2)}×)`);
      await c.stop();
      c.remove();
    }
    const file = path.resolve(HERE, '../../bench/results.json');
    const results = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    results.sshfs = { when: new Date().toISOString(), mount: SHARED_MOUNT, loadavg: (await import('node:os')).loadavg().map((l) => Math.round(l * 100) / 100), rows, definition: 'floor: a plain Node script reading every profile and pending card up to its closing fence over the same mount (best of 2); first tick journals every waiting card\'s verdict and claims max_dispatches_per_round (8); next: the same board again' };
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  }, 1_800_000);

  // Opt-in (ABT_MH_CACHED=1): what sshfs's default caching costs, for docs/scale.md. Correctness
  // must hold even so; only the hosts' shares and the skipped rounds change.
  it.runIf(process.env.ABT_MH_CACHED === '1')('with sshfs\'s default caching: still each card done once (shares measured)', async () => {
    const c = cluster(Math.min(CARDS, 120));
    c.start(['abt-alpha', 'abt-beta'], 'reconnect');
    const { persistentDoubles } = await c.runToTheEnd(600_000);
    await c.stop();
    expectEveryCardDoneOnce(c, persistentDoubles);
    const perHost = new Map<number, number>();
    for (const [, nss] of c.ledger().starts) for (const ns of nss) perHost.set(c.hostOfPidns(ns) ?? 0, (perHost.get(c.hostOfPidns(ns) ?? 0) ?? 0) + 1);
    const cached = c.hosts.map((h) => (readOr(path.join(c.dir, `tick-${h.index}.out`)).match(/cached view/g) ?? []).length);
    report('default sshfs caching', c, perHost, `; ticks that saw a cached phantom lock: ${cached.join(', ')}`);
  }, 900_000);

  it('a board on a filesystem without hard links is refused at the start of a tick, naming the path', async () => {
    const c = cluster(3);
    // sshfs's disable_hardlink: link(2) fails as on FUSE SMB, where every tick used to fail obscurely.
    const tick = `node ${CLI} tick --config ${c.mount}/board.yml > ${c.dir}/nolinks.out 2> ${c.dir}/nolinks.err; echo $? > ${c.dir}/nolinks.rc`;
    c.start(['abt-nolinks'], `${SHARED_MOUNT},disable_hardlink`, ['bash', '-c', tick]);
    expect(await c.hosts[0]!.exited).toBe(0);
    expect(readOr(path.join(c.dir, 'nolinks.rc')).trim()).toBe('1');
    expect(readOr(path.join(c.dir, 'nolinks.err'))).toContain(`${c.mount}/vault/KANBAN is on a filesystem without hard links`);
    expect(c.list('pending')).toHaveLength(3);
    await c.stop();
  }, 120_000);
});
