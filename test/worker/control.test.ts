import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { card, makeBoard, profile } from '../helpers/vault.js';
import { runCli, waitFor } from '../reliability/harness.js';

/**
 * Workers under the board's control, with real processes: a tick starts the real supervisor,
 * whose worker is a shell script that ignores SIGTERM and leaves a grandchild behind in its
 * process group. A cancel, a reclaim and a timeout must each leave no process of that group
 * alive within 15 s (SIGTERM to the group, SIGKILL 10 s later), and the run record says how the
 * run ended.
 */

const STUBBORN_WORKER = `#!/bin/sh
trap '' TERM
sleep 600 &
echo "$$ $!" > "$PIDS_FILE.$(basename "$BOARD_CARD")"
while :; do sleep 1; done
`;

const LIMIT_MS = 15_000;

/** A worker that dies on SIGTERM like most programs: the tick's immediate signal ends it. */
const OBEDIENT_WORKER = `#!/bin/sh
sleep 600 &
echo "$$ $!" > "$PIDS_FILE.$(basename "$BOARD_CARD")"
while :; do sleep 1; done
`;

function stubbornBoard(config: Record<string, string> = {}, harness: Record<string, string> = {}, worker = STUBBORN_WORKER) {
  const root = makeBoard(
    {
      'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [draft]\nskills: [write]'),
      'KANBAN/pending/x.md': card('function: write\nrequest: "Write a draft about kanban"\ncreated: 2026-11-01T08:00:00.000Z\norigin: human\nattempts: 0\npaths: []', '\nA card.\n'),
    },
    {
      'board.yml': ['vault: vault', 'default_harness: sh', 'logs: logs', 'max_attempts: 3', ...Object.entries(config).map(([k, v]) => `${k}: ${v}`)].join('\n') + '\n',
      'harnesses/worker.sh': worker,
      'models.yml': 'sh:\n  standard: none\n',
    },
  );
  // In the vault: a sandboxed worker writes there (its outputs), nowhere else outside its run folder.
  const pidsFile = path.join(root, 'vault', 'pids');
  fs.writeFileSync(
    path.join(root, 'harnesses/sh.yml'),
    [
      `command: ["/bin/sh", "${path.join(root, 'harnesses/worker.sh')}"]`,
      'prompt_template: "{card}"',
      'environment:',
      `  PIDS_FILE: "${pidsFile}"`,
      '  PATH: /usr/bin:/bin',
      'credential_guard: guard.sh',
      ...Object.entries(harness).map(([k, v]) => `${k}: ${v}`),
    ].join('\n') + '\n',
  );
  return { root, vault: path.join(root, 'vault'), pidsFile: `${pidsFile}.x.md` };
}

/**
 * The worker's processes as this host sees them, once it has started. A sandboxed worker lives in
 * a PID namespace of its own, so the pids it writes are not this host's: its processes are found by
 * the PIDS_FILE value in their environment instead (the shell and the `sleep` it left behind).
 */
async function workerPids(pidsFile: string): Promise<number[]> {
  await waitFor('the worker to start', () => fs.existsSync(pidsFile) && fs.readFileSync(pidsFile, 'utf8').trim(), 20_000);
  const marker = `PIDS_FILE=${pidsFile.replace(/\.x\.md$/, '')}`;
  return waitFor('the worker\'s processes', () => {
    const found = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker) && alive(pid);
      } catch {
        return false;
      }
    });
    return found.length >= 2 ? found : undefined;
  }, 10_000);
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

function runRecords(vault: string): Record<string, unknown>[] {
  const dir = path.join(vault, 'KANBAN/.runs');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as Record<string, unknown>);
}

/** Wait until every process of the worker is gone, and say how long it took from `since`. */
async function goneWithin(pids: readonly number[], since: number): Promise<number> {
  await waitFor('the worker group to be gone', () => pids.every((pid) => !alive(pid)), LIMIT_MS + 5_000, 200);
  return Date.now() - since;
}

describe('workers under the board control', () => {
  it.concurrent('a cancel stops the whole worker group (SIGTERM ignored, so SIGKILL) within 15 s, and blocks the card', async () => {
    const b = stubbornBoard();
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    const pids = await workerPids(b.pidsFile);
    expect(pids.every(alive)).toBe(true);

    const since = Date.now();
    const cancelled = await runCli(b.root, ['card', 'cancel', 'x.md', '--reason', 'wrong brief']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(await goneWithin(pids, since)).toBeLessThanOrEqual(LIMIT_MS);

    const data = parseFrontMatter(fs.readFileSync(path.join(b.vault, 'KANBAN/pending/x.md'), 'utf8')).data;
    expect(data).toMatchObject({ attempts: 0 });
    expect(String(data.blocked)).toContain('cancelled: wrong brief');
    expect(data.claimed).toBeUndefined();
    const record = await waitFor('the run record to say how it ended', () => runRecords(b.vault).find((r) => r.ended !== undefined), 10_000);
    expect(record).toMatchObject({ state: 'exited', ended: 'stopped', stopped: 'cancelled', leased: true });
  }, 60_000);

  it.concurrent('a timeout stops the worker, records it as timed out, and the card goes back with attempts + 1', async () => {
    const b = stubbornBoard({}, { timeout: '2s' });
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    const pids = await workerPids(b.pidsFile);
    const since = Date.now();
    expect(await goneWithin(pids, since)).toBeLessThanOrEqual(2_000 + LIMIT_MS);
    const record = await waitFor('the run record to end', () => runRecords(b.vault).find((r) => r.ended !== undefined), 10_000);
    expect(record).toMatchObject({ state: 'exited', ended: 'stopped', stopped: 'timed-out', timeoutMs: 2_000 });

    const next = await runCli(b.root, ['tick', '--json']);
    const json = JSON.parse(next.stdout) as { zombies: { card: string; kind: string; reason: string }[] };
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'x.md', kind: 'dead-worker', reason: expect.stringContaining('timed out after') })]);
    const data = parseFrontMatter(fs.readFileSync(path.join(b.vault, 'KANBAN/pending/x.md'), 'utf8')).data;
    expect(data).toMatchObject({ attempts: 1 });
    expect(data.blocked).toBeUndefined();
  }, 60_000);

  it.concurrent('a reclaimed zombie has its worker stopped within 15 s of the reclaim', async () => {
    const b = stubbornBoard({ zombie_after: '1s' });
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    const pids = await workerPids(b.pidsFile);
    // Older than zombie_after now: the next tick reclaims it and the worker must go.
    await new Promise((r) => setTimeout(r, 1_200));
    const since = Date.now();
    const reclaim = await runCli(b.root, ['tick', '--json']);
    const json = JSON.parse(reclaim.stdout) as { zombies: { card: string; kind: string }[] };
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'x.md', kind: 'expired' })]);
    expect(await goneWithin(pids, since)).toBeLessThanOrEqual(LIMIT_MS);
    const record = await waitFor('the run record to end', () => runRecords(b.vault).find((r) => r.ended !== undefined), 10_000);
    expect(record).toMatchObject({ ended: 'stopped', stopped: 'reclaimed' });
    expect(parseFrontMatter(fs.readFileSync(path.join(b.vault, 'KANBAN/pending/x.md'), 'utf8')).data).toMatchObject({ attempts: 1 });
  }, 60_000);

  it.concurrent('a worker the tick stopped at once (SIGTERM on reclaim) is still recorded as stopped: reclaimed', async () => {
    const b = stubbornBoard({ zombie_after: '1s' }, {}, OBEDIENT_WORKER);
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    const pids = await workerPids(b.pidsFile);
    await new Promise((r) => setTimeout(r, 1_200));
    const since = Date.now();
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    expect(await goneWithin(pids, since)).toBeLessThanOrEqual(LIMIT_MS);
    const record = await waitFor('the run record to end', () => runRecords(b.vault).find((r) => r.ended !== undefined), 10_000);
    expect(record).toMatchObject({ ended: 'stopped', stopped: 'reclaimed' });
  }, 60_000);

  it.concurrent('a worker that cannot start spends no attempt; the third return in a row blocks the card with the reason', async () => {
    const b = stubbornBoard({}, {});
    // A program that is there and executable (a board never dispatches to one missing from its
    // PATH: the card waits, issue 15) but whose interpreter is gone: exec(2) fails with ENOENT.
    fs.writeFileSync(path.join(b.root, 'harnesses/agent-cli'), '#!/nonexistent/interpreter\n', { mode: 0o755 });
    fs.writeFileSync(path.join(b.root, 'harnesses/sh.yml'), ['command: ["{harnesses}/agent-cli", "{prompt}"]', 'prompt_template: "{card}"', 'credential_guard: guard.sh'].join('\n') + '\n');
    for (let round = 1; round <= 3; round += 1) {
      expect((await runCli(b.root, ['tick'])).code).toBe(0);
      await waitFor('the supervisor to record the start error', () => runRecords(b.vault).filter((r) => r.startError !== undefined).length === round, 10_000);
      const next = await runCli(b.root, ['tick', '--json']);
      const json = JSON.parse(next.stdout) as { zombies: { card: string; kind: string; reason: string }[] };
      expect(json.zombies).toEqual([expect.objectContaining({ card: 'x.md', kind: 'never-started', reason: expect.stringContaining('ENOENT') })]);
    }
    const data = parseFrontMatter(fs.readFileSync(path.join(b.vault, 'KANBAN/pending/x.md'), 'utf8')).data;
    expect(data).toMatchObject({ attempts: 0 });
    expect(String(data.blocked)).toContain('never started 3 times in a row');
  }, 90_000);

  it.concurrent('a sandboxed worker cannot forge the start report (its fd 3 is not the supervisor\'s): its exit is an exit, and spends an attempt', async () => {
    const FORGER = `#!/bin/sh\necho '{"startError":{"code":"ENOENT","message":"forged"}}' >&3\necho "forged" > "$PIDS_FILE.$(basename "$BOARD_CARD")"\nexit 1\n`;
    const b = stubbornBoard({}, {}, FORGER);
    expect((await runCli(b.root, ['tick'])).code).toBe(0);
    const record = await waitFor('the run record to end', () => runRecords(b.vault).find((r) => r.ended !== undefined), 20_000);
    expect(fs.readFileSync(b.pidsFile, 'utf8').trim()).toBe('forged');
    expect(record).toMatchObject({ state: 'exited', ended: 'exited', exitCode: 1 });
    expect(record.startError).toBeUndefined();
  }, 60_000);
});
