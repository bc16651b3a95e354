#!/usr/bin/env node
/**
 * The board's benchmark (`npm run bench`; not part of the tests).
 *
 *   node bench/run.mjs [--sizes 1k,10k,50k,100k] [--profiles 50,500] [--no-watch] [--samples 40]
 *   node bench/run.mjs --hostile [--cards 1000] [--profiles 50]
 *   node bench/run.mjs --watch-only [--samples 40]     (the watch latency alone, merged into results.json)
 *   node bench/run.mjs --burst [3000] [--profiles 50]  (the burst alone, merged into results.json)
 *
 * For each size × profile count it generates a synthetic vault under bench/vaults/ (reused when
 * present) and measures:
 * - `board dry-run --json` wall time and peak RSS (/usr/bin/time -v), best of 5, each followed by a floor run;
 * - the floor: a plain Node script that reads every card's and profile's front-matter bytes (up
 *   to the closing fence), the physical limit of a full census; and the ratio dry-run / floor;
 * - the per-card cost: (wall − wall of the same board with no cards) / cards, which must stay
 *   flat as the board grows (no quadratic matching);
 * - with `board watch` running on a 10k-card board, the latency from a card's rename into
 *   pending/ to its worker's spawn. "Spawn" is timed by the worker itself: the first thing the
 *   worker script does is print the time, so the figure includes the dispatcher's round, the
 *   supervisor's start-up, /bin/sh starting and `date` running: an upper bound of the moment the
 *   worker process exists. The supervisor's recorded `start` (stamped just before it creates the
 *   run record and spawns) is reported beside it as a lower bound.
 * Prints a table and writes bench/results.json.
 *
 * With `--hostile` (and nothing else): one `board tick` over a board holding the worst file of
 * each kind (bench/hostile.mjs: billion laughs, 1 MiB front matter, a 64 MiB fenceless file,
 * deep nesting, binary, a FIFO, a 255-byte name …) next to the same board without them; writes
 * bench/results-hostile.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addWorstFiles, tickOnCopy } from './hostile.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(HERE);
// What `board` (package.json's bin) runs.
const CLI = path.join(ROOT, 'dist/cli.cjs');
const VAULTS = path.join(HERE, 'vaults');
// Issue 20's targets: a census within 1.5× its floor under 200 MB, a drop spawned within 50 ms (p99).
const TARGETS = { ratio: 1.5, rssMB: 200, watchP99Ms: 50 };

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const parseSize = (s) => Number(s.replace(/k$/i, '000'));
const sizes = opt('sizes', '1k,10k,50k,100k').split(',').map(parseSize);
const profileCounts = opt('profiles', '50,500').split(',').map(Number);
const withWatch = !args.includes('--no-watch');
const samples = Number(opt('samples', '40'));
const FUNCTIONS = 10;

// ---------------------------------------------------------------- vault generation

function writeBoard(dir, { cards, profiles, waitingOnly = false, harness }) {
  fs.rmSync(dir, { recursive: true, force: true });
  const vault = path.join(dir, 'vault');
  for (const f of ['pending', 'in-progress', 'done', 'scheduled']) fs.mkdirSync(path.join(vault, 'KANBAN', f), { recursive: true });
  fs.mkdirSync(path.join(dir, 'harnesses'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'board.yml'), 'vault: vault\ndefault_harness: bench\nlogs: logs\nmax_dispatches_per_round: 5\nzombie_after: 2h\n');
  fs.writeFileSync(path.join(dir, 'harnesses/guard.sh'), '#!/bin/sh\nexit 0\n');
  fs.writeFileSync(path.join(dir, 'harnesses/bench.yml'), harness ?? 'command: ["/bin/true", "{prompt}"]\nprompt_template: "{card}"\ncredential_guard: guard.sh\n');
  fs.writeFileSync(path.join(dir, 'models.yml'), 'bench:\n  minimum: m-small\n  standard: m-medium\n  advanced: m-large\n');
  for (let p = 0; p < profiles; p += 1) {
    const d = path.join(vault, 'AGENTS', `profile-${p}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(
      path.join(d, 'PROFILE.md'),
      `---\nname: profile-${p}\nversion: 1\ndescription: Profile ${p} of the benchmark. It writes topic ${p} reports and nothing else.\nfunction: fn-${p % FUNCTIONS}\nhandles: [topic ${p} report, topic ${p} summary, weekly topic ${p} digest]\nrefuses: [secret topic ${p}]\nskills: [write-report]\nmodel_capacity: standard\n---\n\n# profile-${p}\n\n## Mission\nWrites reports.\n`,
    );
  }
  const pending = path.join(vault, 'KANBAN/pending');
  for (let j = 0; j < cards; j += 1) fs.writeFileSync(path.join(pending, `card-${String(j).padStart(6, '0')}.md`), cardText(j, profiles, waitingOnly));
  fs.writeFileSync(path.join(dir, '.complete'), JSON.stringify({ cards, profiles, waitingOnly }));
  return dir;
}

function cardText(j, profiles, waitingOnly) {
  const p = j % profiles;
  const kind = j % 13;
  const fn = waitingOnly ? 'fn-nobody' : `fn-${p % FUNCTIONS}`;
  const request = kind === 7 ? `Something nobody handles, number ${j}` : `Please write the topic ${p} report for week ${j % 52} with the usual sections`;
  const inputs = kind === 11 ? `inputs:\n  source: notes/source-${j}.md\n` : '';
  const day = String(1 + (j % 28)).padStart(2, '0');
  return `---\nfunction: ${fn}\nrequest: "${request}"\ncreated: 2026-11-${day}T09:${String(j % 60).padStart(2, '0')}:00.000Z\norigin: human\n${inputs}priority: ${j % 50 === 0 ? 'urgent' : 'normal'}\nattempts: 0\npaths: []\n---\n\nCard ${j} of the benchmark: a few lines of body, as a person would write them.\nThe dispatcher never reads past the front matter's meaning, but it does read the bytes.\n\n## Record\n- 2026-11-${day} 09:00\n    - human: created.\n`;
}

function boardFor(cards, profiles) {
  const dir = path.join(VAULTS, `${cards}-cards-${profiles}-profiles`);
  const marker = path.join(dir, '.complete');
  if (fs.existsSync(marker)) {
    const m = JSON.parse(fs.readFileSync(marker, 'utf8'));
    if (m.cards === cards && m.profiles === profiles && !m.waitingOnly) return dir;
  }
  process.stderr.write(`generating ${cards} cards × ${profiles} profiles…\n`);
  writeBoard(dir, { cards, profiles });
  // Written back before anything is timed: a 50k board timed right after its generation ran at
  // 1.61× its floor, and at 1.41–1.44× minutes later (the kernel still writing its 50k new files
  // back, presumably, which a sync rules out either way).
  spawnSync('sync', [], { stdio: 'ignore' });
  return dir;
}

// ---------------------------------------------------------------- measurements

/** The floor: a plain read of the same bytes (bench/floor.mjs). */
const floorScript = path.join(HERE, 'floor.mjs');

/** Run a command under /usr/bin/time -v: wall ms (measured here) and peak RSS in MB. */
function timed(argv) {
  const haveTime = fs.existsSync('/usr/bin/time');
  const full = haveTime ? ['/usr/bin/time', '-v', ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, BOARD_CONFIG: '' } });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return { wallMs, rssMB: rss ? Number(rss[1]) / 1024 : NaN, stdout: r.stdout };
}

function best(n, fn) {
  const runs = Array.from({ length: n }, fn);
  return runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
}

function dryRun(dir, repeats) {
  return best(repeats, () => timed([process.execPath, CLI, 'dry-run', '--json', '--config', path.join(dir, 'board.yml'), '--now', '2026-12-02T10:00:00.000Z']));
}

function floor(dir, repeats) {
  return best(repeats, () => timed([process.execPath, floorScript, path.join(dir, 'vault')]));
}

// ---------------------------------------------------------------- watch latency

/** `until(what, probe, ms)`: poll `probe` every `pollMs` until it holds, or fail after `ms` with the watcher's last stderr. */
function waiter(bench, stderr, pollMs) {
  return async (what, probe, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!probe()) {
      if (Date.now() > end) throw new Error(`${bench}: timed out waiting for ${what}\n${stderr().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
}

/**
 * A board whose worker notes when it runs (ms since the epoch, in `spawned.log`), then moves its
 * card to done/ so the board stays as it was; and a drop folder beside the vault, not in it (the
 * drop's folder is no part of the board: in the vault, chokidar would list it with every change).
 * The harness is unconfined: this times the dispatcher (its round, the supervisor's start); a
 * confined run's sandbox start is timed on its own (confinement(), below) and adds to it.
 */
function recordingBoard(dir, { cards, profiles, waitingOnly = false }) {
  const recordFile = path.join(dir, 'spawned.log');
  const worker = path.join(dir, 'harnesses/worker.sh');
  const harness = `command: ["/bin/sh", "${worker}"]\nprompt_template: "{card}"\nenvironment:\n  RECORD_FILE: "${recordFile}"\ncredential_guard: guard.sh\nsandbox: none\n`;
  writeBoard(dir, { cards, profiles, waitingOnly, harness });
  fs.writeFileSync(worker, '#!/bin/sh\nt=$(date +%s%3N)\nprintf "%s %s\\n" "$(basename "$BOARD_CARD")" "$t" >> "$RECORD_FILE"\nln "$BOARD_CARD" "$BOARD_VAULT/KANBAN/done/$(basename "$BOARD_CARD")" && rm "$BOARD_CARD"\n');
  fs.writeFileSync(recordFile, '');
  const inbox = path.join(dir, 'inbox');
  fs.mkdirSync(inbox, { recursive: true });
  return { recordFile, inbox };
}

async function watchLatency(cards, profiles) {
  const dir = path.join(VAULTS, `watch-${cards}-cards-${profiles}-profiles`);
  process.stderr.write(`generating the watch board (${cards} waiting cards × ${profiles} profiles)…\n`);
  const { recordFile, inbox } = recordingBoard(dir, { cards, profiles, waitingOnly: true });

  const watch = spawn(process.execPath, [CLI, 'watch', '--config', path.join(dir, 'board.yml'), '--interval', '10m', '--debounce', '0ms'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOARD_CONFIG: '' } });
  let stderr = '';
  let stdout = '';
  watch.stderr.on('data', (d) => (stderr += d));
  watch.stdout.on('data', (d) => (stdout = (stdout + d).slice(-4096)));
  const until = waiter('watch bench', () => stderr, 2);
  let floor;
  try {
    await until('the watcher', () => stderr.includes('watching the vault'), 120_000);
    // Let the first round (a full census of the board, cold) finish before sampling: its line on
    // stdout, then a moment for the spare supervisor. (A fixed 3 s was not always enough under
    // load, and the first sample then timed the start round.)
    await until('the first round', () => /\(start\)/.test(stdout), 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    const spawnLat = [];
    const supervisorLat = [];
    const floorLat = [];
    floor = await startWatchFloor(dir);
    // The cards are written before the sampling starts, as a drop is: a finished file moved in. (A
    // card written less than the watcher's `stableMs` before it lands waits out the rest of it:
    // the writes-finished rule, src/watch/folder-watcher.ts.)
    const sampleName = (k) => `latency-${String(k).padStart(3, '0')}.md`;
    for (let k = 0; k < samples; k += 1) {
      const text = `---\nfunction: fn-${0}\nrequest: "Please write the topic 0 report for the latency sample ${k}"\ncreated: 2026-12-01T09:00:00.000Z\norigin: human\nattempts: 0\npaths: []\n---\n\nLatency sample.\n`;
      fs.writeFileSync(path.join(inbox, sampleName(k)), text);
      fs.writeFileSync(path.join(floor.inbox, sampleName(k)), text);
    }
    await new Promise((r) => setTimeout(r, 1000));
    /** Drops `name` from `from` into `pending` and waits for the worker's line in `record`: ms from the rename to the worker's own timestamp. */
    const drop = async (what, name, from, pending, record) => {
      const t0 = Date.now();
      fs.renameSync(path.join(from, name), path.join(pending, name));
      const line = () => fs.readFileSync(record, 'utf8').split('\n').find((l) => l.startsWith(`${name} `));
      await until(what, line, 30_000);
      return { t0, ms: Number(line().split(' ')[1]) - t0 };
    };
    for (let k = 0; k < samples; k += 1) {
      const name = sampleName(k);
      const { t0, ms } = await drop(`sample ${k}`, name, inbox, path.join(dir, 'vault/KANBAN/pending'), recordFile);
      spawnLat.push(ms);
      const runs = fs.readdirSync(path.join(dir, 'vault/KANBAN/.runs')).filter((f) => f.startsWith(name.replace(/\.md$/, '.')));
      const record = JSON.parse(fs.readFileSync(path.join(dir, 'vault/KANBAN/.runs', runs[0]), 'utf8'));
      supervisorLat.push(Date.parse(record.start) - t0);
      // The floor's sample right after the board's, so both meet the machine as it is now; not
      // sooner, or it would meet the board's own aftermath (its next spare starting, ~0.2 s).
      await new Promise((r) => setTimeout(r, 500));
      floorLat.push((await drop(`floor sample ${k}`, name, floor.inbox, floor.pending, floor.recordFile)).ms);
      await new Promise((r) => setTimeout(r, 150));
    }
    const spawned = summary(spawnLat);
    const floorSummary = summary(floorLat);
    return {
      cards,
      profiles,
      samples,
      spawn: spawned,
      supervisorStart: summary(supervisorLat),
      floor: floorSummary,
      ratio: { p50: round(spawned.p50 / floorSummary.p50, 2), p99: round(spawned.p99 / floorSummary.p99, 2) },
      // In sample order: where a slow one falls (the first samples, a heartbeat, a neighbour's load).
      spawnMs: spawnLat,
      floorMs: floorLat,
      definition: 'spawn: rename into pending/ -> the worker\'s own first timestamp (upper bound of its spawn); supervisorStart: -> the supervisor\'s recorded start, just before it spawns the worker (lower bound); floor: the same drop and worker under bench/watch-floor.mjs (fs.watch on pending/, one detached spawn of the worker per card, nothing in between), each floor sample right after its board sample; ratio: board / floor, at p50 and at p99',
    };
  } finally {
    watch.kill('SIGTERM');
    floor?.process.kill('SIGTERM');
    await new Promise((r) => watch.once('close', r));
  }
}

/** The watch latency's figures, each with its floor and ratio. */
function watchLine(w) {
  return (
    `watch on ${w.cards} cards × ${w.profiles} profiles, ${w.samples} samples: rename → worker spawned (its own clock) p50 ${w.spawn.p50} ms, p99 ${w.spawn.p99} ms; ` +
    `floor (fs.watch + one spawn of the same worker) p50 ${w.floor.p50} ms, p99 ${w.floor.p99} ms; ratio p50 ${w.ratio.p50}, p99 ${w.ratio.p99}; ` +
    `rename → supervisor start p50 ${w.supervisorStart.p50} ms, p99 ${w.supervisorStart.p99} ms`
  );
}

/** The burst figure in two lines, each with its floor and ratio. */
function burstLines(b) {
  return [
    `burst: ${b.cards} cards dropped at once, ${b.profiles} profiles, ${b.maxDispatchesPerRound} a round: all spawned in ${b.allSpawnedMs} ms = ${b.cardsPerSecond} cards/s over ${b.rounds} rounds (round p50 ${b.roundMs.p50} ms, p99 ${b.roundMs.p99} ms, max ${b.roundMs.max} ms)`,
    `floor: ${b.floor.supervisors} bare supervisors, ${b.floor.parallel} at a time: ${b.floor.ms} ms = ${b.floor.cardsPerSecond}/s; ratio ${b.ratio}`,
  ];
}

/** The multi-host suite's sshfs figure (test/multihost, ABT_MH_SSHFS_BENCH=1): one line per board size. */
function sshfsLines(s) {
  return s.rows.map((r) => `one tick over sshfs (caching off), ${r.cards} cards: floor ${r.floorMs} ms; first tick ${r.firstTickMs} ms (${r.firstRatio}×), next tick ${r.nextTickMs} ms (${r.nextRatio}×)`);
}

/**
 * The watch latency's floor (bench/watch-floor.mjs) beside the board: its own vault (pending/,
 * done/), drop folder and record file, and the board's very worker script.
 */
async function startWatchFloor(dir) {
  const vault = path.join(dir, 'floor-vault');
  fs.rmSync(vault, { recursive: true, force: true });
  for (const f of ['pending', 'done']) fs.mkdirSync(path.join(vault, 'KANBAN', f), { recursive: true });
  const inbox = path.join(dir, 'floor-inbox');
  fs.rmSync(inbox, { recursive: true, force: true });
  fs.mkdirSync(inbox, { recursive: true });
  const recordFile = path.join(dir, 'floor-spawned.log');
  fs.writeFileSync(recordFile, '');
  const child = spawn(process.execPath, [path.join(HERE, 'watch-floor.mjs'), vault, path.join(dir, 'harnesses/worker.sh'), recordFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench/watch-floor.mjs exited (${code}) before it watched`)));
    child.stdout.once('data', () => resolve());
  });
  return { process: child, inbox, pending: path.join(vault, 'KANBAN/pending'), recordFile };
}

// ---------------------------------------------------------------- bursts

/**
 * `board watch` on a board with `profiles` profiles and no card, then `n` cards renamed into
 * pending/ at once. Measured: the time from the drop to the last worker's own first timestamp
 * (cards spawned per second), and each round's duration (its JSON line's arrival minus its `now`,
 * the moment its snapshot was taken: how old a snapshot a round acts on, at most). The floor:
 * the same number of bare supervisors (`node dist/supervisor.cjs`, which loads and exits: no job)
 * spawned detached, `max_dispatches_per_round` at a time: Node's start-up cost, which every card's
 * supervisor pays, and nothing of the board's.
 */
async function burst(n, profiles) {
  const dir = path.join(VAULTS, `burst-${n}-cards-${profiles}-profiles`);
  const { recordFile, inbox } = recordingBoard(dir, { cards: 0, profiles });
  const perRound = 5; // writeBoard's max_dispatches_per_round
  // Every card dispatchable: each handled by one profile, no input to wait for.
  for (let j = 0; j < n; j += 1) {
    const p = j % profiles;
    const text = `---\nfunction: fn-${p % FUNCTIONS}\nrequest: "Please write the topic ${p} report for burst card ${j}"\ncreated: 2026-12-01T09:${String(j % 60).padStart(2, '0')}:00.000Z\norigin: human\nattempts: 0\npaths: []\n---\n\nBurst card ${j}.\n`;
    fs.writeFileSync(path.join(inbox, `burst-${String(j).padStart(6, '0')}.md`), text);
  }

  const watch = spawn(process.execPath, [CLI, 'watch', '--json', '--config', path.join(dir, 'board.yml'), '--interval', '10m', '--debounce', '0ms'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOARD_CONFIG: '' } });
  let stderr = '';
  let pending = '';
  const rounds = [];
  watch.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  watch.stdout.on('data', (d) => {
    const arrived = Date.now();
    pending += d;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const text = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        const r = JSON.parse(text);
        if (r.now) rounds.push({ ms: arrived - Date.parse(r.now), spawned: r.transitions.filter((t) => t.kind === 'spawned').length, partial: Boolean(r.partial) });
      } catch {
        // not a round line
      }
    }
  });
  const until = waiter('burst bench', () => stderr, 20);
  try {
    await until('the watcher', () => stderr.includes('watching the vault'), 120_000);
    await until('the first round', () => rounds.length > 0, 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    rounds.length = 0;
    const t0 = Date.now();
    for (const name of fs.readdirSync(inbox)) fs.renameSync(path.join(inbox, name), path.join(dir, 'vault/KANBAN/pending', name));
    const dropMs = Date.now() - t0;
    const spawnedCount = () => fs.readFileSync(recordFile, 'utf8').split('\n').filter(Boolean).length;
    await until(`${n} workers`, () => spawnedCount() >= n, 60 * 60_000);
    const times = fs.readFileSync(recordFile, 'utf8').split('\n').filter(Boolean).map((l) => Number(l.split(' ')[1]));
    const lastMs = Math.max(...times) - t0;
    const roundMs = summary(rounds.map((r) => r.ms));
    const board = { cards: n, profiles, maxDispatchesPerRound: perRound, dropMs, allSpawnedMs: lastMs, cardsPerSecond: round(n / (lastMs / 1000), 1), rounds: rounds.length, roundsThatSpawned: rounds.filter((r) => r.spawned > 0).length, roundMs };
    const floorResult = await bareSupervisors(n, perRound);
    return { ...board, floor: floorResult, ratio: round(floorResult.cardsPerSecond / board.cardsPerSecond, 2), definition: 'cardsPerSecond: n / (drop -> the last worker\'s own first timestamp); roundMs: each round\'s JSON line arrival minus its `now` (its snapshot\'s age when it ends); floor: n bare supervisors spawned detached, maxDispatchesPerRound at a time; ratio: floor rate / board rate' };
  } finally {
    watch.kill('SIGTERM');
    await new Promise((r) => watch.once('close', r));
  }
}

/** `n` bare supervisors (load the bundle, find no job, exit), `parallel` at a time. */
async function bareSupervisors(n, parallel) {
  const supervisor = path.join(ROOT, 'dist/supervisor.cjs');
  const t0 = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next += 1;
      await new Promise((resolve) => spawn(process.execPath, [supervisor], { stdio: 'ignore', detached: true, env: { PATH: process.env.PATH } }).once('close', resolve));
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const ms = Date.now() - t0;
  return { supervisors: n, parallel, ms, cardsPerSecond: round(n / (ms / 1000), 1) };
}

function summary(values) {
  const s = [...values].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  return { p50: q(50), p99: q(99), max: s[s.length - 1], min: s[0] };
}

// ---------------------------------------------------------------- hostile files

async function hostile() {
  const cards = parseSize(opt('cards', '1000'));
  const profiles = Number(opt('profiles', '50'));
  const plain = writeBoard(path.join(VAULTS, `hostile-without-${cards}-${profiles}`), { cards, profiles });
  const worst = writeBoard(path.join(VAULTS, `hostile-with-${cards}-${profiles}`), { cards, profiles });
  const added = addWorstFiles(worst);
  const tick = (argv) => timed([process.execPath, CLI, ...argv]);
  tickOnCopy(worst, 1, tick); // warm the page cache for both
  const rows = [];
  for (const [name, dir] of [['without', plain], ['with the worst files', worst]]) {
    const r = tickOnCopy(dir, 3, tick);
    const out = JSON.parse(r.stdout);
    rows.push({ board: name, tickMs: round(r.wallMs), rssMB: round(r.rssMB), invalid: out.invalid.length, claimed: out.transitions.filter((t) => t.kind === 'claimed').length });
  }
  const results = { when: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 2)) }, cards, profiles, worstFiles: added, rows };
  fs.writeFileSync(path.join(HERE, 'results-hostile.json'), `${JSON.stringify(results, null, 2)}\n`);
  for (const r of rows) console.log(`${r.board.padEnd(22)} tick ${String(r.tickMs).padStart(6)} ms  peak RSS ${String(r.rssMB).padStart(4)} MB  declared ${r.invalid}  claimed ${r.claimed}`);
  console.log(`(${cards} cards × ${profiles} profiles; ${added.files} worst files, ${round(added.bytes / 1024 / 1024, 1)} MiB)\nwritten to ${path.relative(process.cwd(), path.join(HERE, 'results-hostile.json'))}`);
}

// ---------------------------------------------------------------- main

/** `--burst [N]`: only the burst figure, merged into bench/results.json. */
async function burstOnly() {
  const raw = opt('burst', '3000');
  const n = raw && /^\d+k?$/i.test(raw) ? parseSize(raw) : 3000;
  const profiles = Number(opt('profiles', '50'));
  fs.mkdirSync(VAULTS, { recursive: true });
  const result = await burst(n, profiles);
  const file = path.join(HERE, 'results.json');
  const results = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  results.burst = { when: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((l) => round(l, 2)) }, ...result };
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  for (const line of burstLines(result)) console.log(line);
}

/** `--watch-only`: only the watch latency (10k × 500), merged into bench/results.json. */
async function watchOnly() {
  fs.mkdirSync(VAULTS, { recursive: true });
  const watch = await watchLatency(10_000, 500);
  const file = path.join(HERE, 'results.json');
  const results = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  results.watch = { when: new Date().toISOString(), loadavg: os.loadavg().map((l) => round(l, 2)), ...watch };
  // The verdict follows the figure it judges (a census run without the watch left it null).
  if (results.verdict) results.verdict.watchP99 = { value: watch.spawn.p99, ok: watch.spawn.p99 <= TARGETS.watchP99Ms };
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(watchLine(watch));
}

async function main() {
  if (args.includes('--hostile')) return hostile();
  if (args.includes('--burst')) return burstOnly();
  if (args.includes('--watch-only')) return watchOnly();
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` (npm run bench does)');
  fs.mkdirSync(VAULTS, { recursive: true });
  const rows = [];
  for (const profiles of profileCounts) {
    const empty = boardFor(0, profiles);
    floor(empty, 1);
    const base = dryRun(empty, 3);
    for (const cards of sizes) {
      const dir = boardFor(cards, profiles);
      const repeats = cards >= 100_000 ? 1 : 5;
      // One untimed read of every byte first, so the dry-run and the floor both meet a warm page
      // cache (a 100k board just generated, or evicted by the last, made the dry-run pay the disk).
      floor(dir, 1);
      // Interleaved, best of each: this machine's speed drifts by ±15 % within minutes, and
      // timing all the dry-runs and then all the floors put that drift into the ratio.
      const pairs = Array.from({ length: repeats }, () => ({ d: dryRun(dir, 1), f: floor(dir, 1) }));
      const d = pairs.map((p) => p.d).reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
      const f = pairs.map((p) => p.f).reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
      const plan = JSON.parse(d.stdout);
      const row = {
        cards,
        profiles,
        dryRunMs: round(d.wallMs),
        rssMB: round(d.rssMB),
        floorMs: round(f.wallMs),
        floorRssMB: round(f.rssMB),
        ratio: round(d.wallMs / f.wallMs, 2),
        perCardUs: round(((d.wallMs - base.wallMs) / cards) * 1000, 1),
        emptyBoardMs: round(base.wallMs),
        planned: { dispatch: plan.dispatch.length, waiting: plan.waiting.length, blocked: plan.blocked.length, invalid: plan.invalid.length },
      };
      rows.push(row);
      process.stderr.write(`${cards} × ${profiles}: dry-run ${row.dryRunMs} ms, ${row.rssMB} MB; floor ${row.floorMs} ms; ratio ${row.ratio}\n`);
    }
  }
  const loadBefore = os.loadavg().map((l) => round(l, 2));
  const watch = withWatch ? await watchLatency(10_000, 500) : undefined;

  const target = rows.find((r) => r.cards === 10_000 && r.profiles === 500);
  const target50k = rows.find((r) => r.cards === 50_000 && r.profiles === 500);
  const perCard = (p) => rows.filter((r) => r.profiles === p).map((r) => r.perCardUs);
  const results = {
    when: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavgAfterDryRuns: loadBefore, loadavg: os.loadavg().map((l) => round(l, 2)) },
    targets: TARGETS,
    dryRun: rows,
    flatness: Object.fromEntries(profileCounts.map((p) => [p, perCard(p)])),
    watch,
    verdict: {
      ratio10kx500: target ? { value: target.ratio, ok: target.ratio <= TARGETS.ratio } : null,
      rss10kx500: target ? { value: target.rssMB, ok: target.rssMB < TARGETS.rssMB } : null,
      ratio50kx500: target50k ? { value: target50k.ratio, ok: target50k.ratio <= TARGETS.ratio } : null,
      rss50kx500: target50k ? { value: target50k.rssMB, ok: target50k.rssMB < TARGETS.rssMB } : null,
      watchP99: watch ? { value: watch.spawn.p99, ok: watch.spawn.p99 <= TARGETS.watchP99Ms } : null,
    },
  };
  results.confinement = confinement();
  // The burst (`--burst`, a run of its own) and the sshfs round (the multi-host suite's
  // measurement) are kept from their last runs, and printed below with when they were measured.
  const previous = fs.existsSync(path.join(HERE, 'results.json')) ? JSON.parse(fs.readFileSync(path.join(HERE, 'results.json'), 'utf8')) : {};
  if (previous.burst) results.burst = previous.burst;
  if (previous.sshfs) results.sshfs = previous.sshfs;
  fs.writeFileSync(path.join(HERE, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);

  const header = ['cards', 'profiles', 'dry-run ms', 'peak RSS MB', 'floor ms', 'ratio', 'µs/card'];
  const table = [header, ...rows.map((r) => [r.cards, r.profiles, r.dryRunMs, r.rssMB, r.floorMs, r.ratio, r.perCardUs].map(String))];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log(line(table[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of table.slice(1)) console.log(line(r));
  if (watch) console.log(`\n${watchLine(watch)}`);
  if (results.burst) console.log(`\n${burstLines(results.burst).join('\n')}\n  (kept from the last \`--burst\` run, ${results.burst.when})`);
  else console.log('\nburst: not measured yet (node bench/run.mjs --burst)');
  if (results.sshfs) console.log(`\n${sshfsLines(results.sshfs).join('\n')}\n  (kept from the last multi-host measurement, ${results.sshfs.when})`);
  else console.log('\nsshfs: not measured yet (ABT_MH_SSHFS_BENCH=1 npm run test:multihost -- -t "one round at 1k and 10k")');
  console.log(`\ntargets: dry-run 10k × 500 and 50k × 500 within ${TARGETS.ratio}× the floor and under ${TARGETS.rssMB} MB; watch p99 at most ${TARGETS.watchP99Ms} ms`);
  for (const [k, v] of Object.entries(results.verdict)) if (v) console.log(`  ${k}: ${v.value} ${v.ok ? 'OK' : 'MISSED'}`);
  if (results.confinement) {
    const c = results.confinement;
    console.log(`\nconfinement: a run's start through the sandbox ${c.sandbox ? `${c.sandbox.sandboxedMs} ms against ${c.sandbox.plainMs} ms plain (+${c.sandbox.overheadMs} ms)` : 'not measured (the sandbox cannot start here)'}`);
    for (const r of c.proxy?.rows ?? []) console.log(`  ${r.answer} ${r.path}: median ${r.median_ms} ms`);
    if (c.proxy?.start) console.log(`  proxy start (listening): median ${c.proxy.start.median_ms} ms`);
  }
  console.log(`\nwritten to ${path.relative(process.cwd(), path.join(HERE, 'results.json'))}`);
}

/**
 * The cost of confining a worker (issue 18): a run's start through the sandbox (bench/sandbox-start.mjs)
 * and a request through the credential proxy (bench/proxy.mjs), each against its floor.
 */
function confinement() {
  const out = {};
  const sandbox = spawnSync(process.execPath, [path.join(HERE, 'sandbox-start.mjs'), '15'], { encoding: 'utf8' });
  if (sandbox.status === 0) out.sandbox = JSON.parse(sandbox.stdout.trim().split('\n').pop());
  else process.stderr.write(`sandbox start not measured: ${sandbox.stderr.trim()}\n`);
  const proxy = spawnSync(process.execPath, [path.join(HERE, 'proxy.mjs')], { encoding: 'utf8' });
  if (proxy.status === 0) out.proxy = JSON.parse(fs.readFileSync(path.join(HERE, 'results-proxy.json'), 'utf8'));
  else process.stderr.write(`proxy not measured: ${proxy.stderr.trim()}\n`);
  return out;
}

function round(x, digits = 0) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

main().catch((error) => {
  console.error(error.stack ?? String(error));
  process.exitCode = 1;
});
