import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTree, profile } from '../helpers/vault.js';

/**
 * Workers on Slurm (issue 14): a single-node cluster (Debian's slurm-wlm and munge, its own state
 * folders, in the network namespace abt-slurm: test/slurm/cluster.sh) runs a board's cards as batch
 * jobs. Every card is closed by its job; a reclaimed job and a timed-out job are cancelled. The
 * board's ticks run in the cluster's namespace, as on a login node. Installs the packages where
 * missing, skips loudly where the machine cannot, and takes everything down afterwards.
 *
 * Run: `npm run build && npm run test:slurm`.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLUSTER = path.join(HERE, 'cluster.sh');
const CLI = path.resolve(HERE, '../../dist/cli.cjs');
const SECRET = 'abt-private-value-4f1c9e';

function cannotRun(): string | undefined {
  if (!fs.existsSync(CLI)) return `${CLI} is missing: npm run build first`;
  let check = spawnSync(CLUSTER, ['check'], { encoding: 'utf8' });
  if (check.status !== 0 && /^missing /.test(check.stdout) && process.getuid?.() === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['install', '-y', '-qq', 'slurm-wlm', 'munge'], { env, stdio: 'ignore' });
    check = spawnSync(CLUSTER, ['check'], { encoding: 'utf8' });
  }
  return check.status === 0 ? undefined : `this machine cannot run it: ${check.stdout.trim() || check.stderr.trim()}`;
}

const skip = cannotRun();
if (skip) console.warn(`\n*** SLURM TEST SKIPPED: ${skip} ***\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = fs.mkdtempSync('/tmp/abt-sl-');
const root = path.join(dir, 'board');
const kanban = path.join(root, 'vault/KANBAN');
let up = false;

function down(): void {
  if (up) spawnSync(CLUSTER, ['down', dir], { stdio: 'ignore' });
  up = false;
}
process.once('exit', down);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    down();
    process.exit(130);
  });
}

/** A command in the cluster's namespace (SLURM_CONF set), to its end. */
function inCluster(...args: string[]) {
  const r = spawnSync(CLUSTER, ['exec', dir, ...args], { encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function board(...args: string[]) {
  return inCluster(process.execPath, CLI, ...args, '--config', path.join(root, 'board.yml'));
}

function list(state: string): string[] {
  try {
    return fs.readdirSync(path.join(kanban, state)).filter((n) => n.endsWith('.md')).sort();
  } catch {
    return [];
  }
}

interface Run {
  runId: string;
  card: string;
  state: string;
  jobId?: string;
  jobState?: string;
  exitCode?: number | null;
  ended?: string;
  stopped?: string;
}

function runs(): Run[] {
  const folder = path.join(kanban, '.runs');
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(fs.readFileSync(path.join(folder, n), 'utf8')) as Run);
}

const card = (fn: string, i: string) => `---\nfunction: ${fn}\nrequest: ${fn} ${i}\ncreated: 2026-12-01 09:00\norigin: human\npaths: []\nattempts: 0\n---\n\nBody.\n`;

const NORMAL = Array.from({ length: 12 }, (_, i) => `job-${String(i + 1).padStart(2, '0')}.md`);

describe.skipIf(skip !== undefined)('workers on a single-node Slurm cluster', () => {
  beforeAll(() => {
    const up1 = spawnSync(CLUSTER, ['up', dir], { encoding: 'utf8' });
    up = true;
    if (up1.status !== 0) throw new Error(`the cluster did not come up: ${up1.stdout}${up1.stderr}`);
    const slurm = (timeout = '') =>
      `command: ["/bin/sh", "${dir}/worker.sh"]\nprompt_template: "card={card}"\ncredential_guard: guard.sh\n` +
      `environment:\n  SLURM_CONF: ${dir}/slurm.conf\nenvironment_from_private: [ABT_SECRET]\nendpoint: { url_env: ABT_URL, upstream: "http://127.0.0.1:9" }\n${timeout}` +
      `runner:\n  kind: slurm\n  args: ["--partition=debug", "--time=10"]\n` +
      // The job runs on a node of the cluster, where the board cannot build the sandbox: said out loud.
      `sandbox: none\n`;
    const files: Record<string, string> = {
      // zombie_after short enough to reclaim the stalling card's job within the test; max_attempts 1
      // so a reclaimed or timed-out card is blocked rather than dispatched again.
      'board.yml': 'vault: vault\nharnesses: harnesses\nmodels: models.yml\ndefault_harness: sl\nlogs: logs\nprivate_env: private.env\nmax_dispatches_per_round: 20\nzombie_after: 40s\nmax_attempts: 1\n',
      'private.env': `ABT_SECRET=${SECRET}\n`,
      'harnesses/sl.yml': slurm(),
      'harnesses/sl-budget.yml': slurm('timeout: 6s\n'),
      // Submitted held (`--hold`): the job waits in the queue until the test releases it.
      'harnesses/sl-held.yml': slurm('timeout: 4s\n').replace('"--time=10"]', '"--time=10", "--hold"]'),
      'harnesses/guard.sh': '#!/bin/sh\nexit 0\n',
      'models.yml': 'sl:\n  minimum: m\n  standard: m\n  advanced: m\nsl-budget:\n  minimum: m\n  standard: m\n  advanced: m\nsl-held:\n  minimum: m\n  standard: m\n  advanced: m\n',
      'vault/AGENTS/worker/PROFILE.md': profile('worker', 'function: work\nhandles: [job]\nskills: [work]'),
      'vault/AGENTS/staller/PROFILE.md': profile('staller', 'function: stall\nhandles: [stall]\nskills: [stall]'),
      'vault/AGENTS/napper/PROFILE.md': profile('napper', 'function: nap\nhandles: [nap]\nskills: [nap]\nharness: sl-budget'),
      'vault/AGENTS/waiter/PROFILE.md': profile('waiter', 'function: wait\nhandles: [wait]\nskills: [wait]\nharness: sl-held'),
      'vault/KANBAN/in-progress/.keep': '',
      'vault/KANBAN/done/.keep': '',
    };
    for (const n of NORMAL) files[`vault/KANBAN/pending/${n}`] = card('work', n);
    files['vault/KANBAN/pending/stall.md'] = card('stall', 'x');
    files['vault/KANBAN/pending/nap.md'] = card('nap', 'x');
    makeTree(files, root);
    // The worker, as a job: records that it ran (on which node, whether the private value came
    // through the job's environment), then closes its card; the stall and nap cards never end.
    fs.writeFileSync(
      path.join(dir, 'worker.sh'),
      `#!/bin/sh
card=$(basename "$BOARD_CARD")
echo "start $card job=$SLURM_JOB_ID secret=$( [ "$ABT_SECRET" = "${SECRET}" ] && echo key || { [ "$ABT_SECRET" = "board-placeholder-ABT_SECRET" ] && echo placeholder || echo none; })" >> ${dir}/ledger
case "$card" in stall.md|nap.md) exec sleep 600 ;; esac
node "$BOARD_BIN" card close "$BOARD_CARD" --empty "Slurm test worker"
`,
    );
  }, 120_000);

  afterAll(() => {
    down();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('harness check: the Slurm client commands and the controller answer', () => {
    const check = board('harness', 'check', 'sl', '--json');
    const report = JSON.parse(check.stdout) as { ready: boolean; slurm?: { ok: boolean; cluster: { ok: boolean; detail: string }; commands: { name: string; path: string | null }[] } };
    expect(report.slurm?.ok).toBe(true);
    expect(report.slurm?.cluster.detail).toMatch(/UP/);
    expect(report.slurm?.commands.filter((c) => c.name !== 'sacct' && !c.path)).toEqual([]);
    expect(check.code).toBe(0);
  });

  it('runs every card as a job: all closed, job id and COMPLETED recorded; a reclaimed and a timed-out job are cancelled', async () => {
    const deadline = Date.now() + 240_000;
    let reclaimedSeen = false;
    let statusSeen = false;
    for (;;) {
      const tick = board('tick');
      expect(tick.code, tick.stderr).toBe(0);
      const done = list('done');
      const r = runs();
      const stall = r.find((x) => x.card === 'stall.md');
      const nap = r.find((x) => x.card === 'nap.md');
      if (stall?.stopped) reclaimedSeen = true;
      if (NORMAL.every((n) => done.includes(n)) && stall?.state === 'exited' && nap?.state === 'exited') break;
      if (Date.now() > deadline) throw new Error(`timed out: done ${done.length}, runs ${JSON.stringify(r)}`);
      // While its job runs (well before zombie_after): status shows the job id and its state.
      if (!statusSeen && stall?.jobId && stall.jobState === 'RUNNING' && list('in-progress').includes('stall.md')) {
        const status = board('status');
        expect(status.stdout).toMatch(new RegExp(`stall\\.md .*Slurm job ${stall.jobId} RUNNING`));
        statusSeen = true;
      }
      await sleep(3000);
    }
    expect(reclaimedSeen).toBe(true);
    expect(statusSeen).toBe(true);

    const r = runs();
    for (const n of NORMAL) {
      const run = r.find((x) => x.card === n);
      expect(run, n).toMatchObject({ state: 'exited', exitCode: 0, jobState: 'COMPLETED', ended: 'closed' });
      expect(run!.jobId).toMatch(/^\d+$/);
    }
    expect(list('in-progress')).toEqual([]);
    // The stalling card's claim outlived zombie_after: reclaimed, its job cancelled, the card blocked (max_attempts 1).
    expect(r.find((x) => x.card === 'stall.md')).toMatchObject({ state: 'exited', ended: 'stopped', stopped: 'reclaimed', jobState: 'CANCELLED' });
    // The napping card's harness has a 6 s budget: timed out, its job cancelled.
    expect(r.find((x) => x.card === 'nap.md')).toMatchObject({ state: 'exited', ended: 'stopped', stopped: 'timed-out', jobState: 'CANCELLED' });
    for (const c of ['stall.md', 'nap.md']) expect(fs.readFileSync(path.join(kanban, 'pending', c), 'utf8')).toMatch(/^blocked: /m);
    // Nothing is left in the queue.
    expect(inCluster('squeue', '-h').stdout.trim()).toBe('');

    // No job got the private value: its environment holds the placeholder (the run's credential
    // proxy, beside its supervisor, holds the key), and neither the value nor the placeholder's
    // real counterpart is in its script or argv.
    const ledger = fs.readFileSync(path.join(dir, 'ledger'), 'utf8').trim().split('\n');
    // Every job whose script ran wrote one line: each normal card's (its script closed it) and the
    // staller's (it ran until reclaimed). The napper's 6 s budget counts from the job's start as
    // Slurm reports it, RUNNING from its allocation; on this one small node slurmd launches a
    // burst's batch scripts seconds after their allocation, so it can be cancelled before its
    // script's first line.
    const ledgerCards = ledger.map((line) => line.split(' ')[1]);
    for (const name of [...NORMAL, 'stall.md']) expect(ledgerCards.filter((c) => c === name), name).toHaveLength(1);
    expect(ledgerCards.filter((c) => c === 'nap.md').length).toBeLessThanOrEqual(1);
    expect(ledger.length).toBe(ledgerCards.filter((c) => [...NORMAL, 'stall.md', 'nap.md'].includes(c!)).length);
    for (const line of ledger) expect(line).toMatch(/ job=\d+ secret=placeholder$/);
    for (const run of r) {
      const script = inCluster('scontrol', 'write', 'batch_script', run.jobId!, '-');
      expect(script.code, script.stderr).toBe(0);
      expect(script.stdout).toContain('exec ');
      expect(script.stdout).not.toContain(SECRET);
      const shown = inCluster('scontrol', 'show', 'job', run.jobId!);
      expect(shown.stdout).not.toContain(SECRET);
    }

    // board runs and board show name the job and its state.
    const listed = board('runs');
    for (const run of r) expect(listed.stdout).toMatch(new RegExp(`${run.runId.replace(/[.]/g, '\\.')} .*job ${run.jobId} ${run.jobState}`));
    const shown = board('show', r.find((x) => x.card === 'nap.md')!.runId);
    expect(shown.stdout).toMatch(/^job +Slurm \d+ \(CANCELLED\)$/m);
  }, 300_000);

  it('a job held in the queue past its harness\'s time budget is not timed out: the budget counts from its start', async () => {
    fs.writeFileSync(path.join(kanban, 'pending', 'held.md'), card('wait', 'x'));
    const tick = board('tick');
    expect(tick.code, tick.stderr).toBe(0);
    const held = () => runs().find((x) => x.card === 'held.md') as (Run & { log?: string }) | undefined;
    const until = async (what: string, ok: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !ok(); await sleep(250)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(held())}`);
    };
    await until('the held job\'s id', () => held()?.jobId !== undefined, 30_000);
    const jobId = held()!.jobId!;
    // Over twice its 4 s budget in the queue, held: still its run, the job still waiting.
    await sleep(9_000);
    expect(held()).toMatchObject({ state: 'started' });
    expect(inCluster('squeue', '-h', '-j', jobId, '-o', '%T').stdout.trim()).toBe('PENDING');
    expect(inCluster('scontrol', 'release', jobId).code).toBe(0);
    // Released, it runs (well inside 4 s) and its script closes the card.
    await until('the released job\'s end', () => held()?.state === 'exited', 60_000);
    expect(held()).toMatchObject({ ended: 'closed', exitCode: 0, jobState: 'COMPLETED' });
    expect(held()!.stopped).toBeUndefined();
    expect(list('done')).toContain('held.md');
    expect(fs.readFileSync(held()!.log!, 'utf8')).toMatch(/job running after \d+ s in the queue: its time budget of 4 s counts from now/);
  }, 120_000);
});
