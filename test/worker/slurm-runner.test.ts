import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComposedCommand } from '../../src/core/compose.js';
import { checkSlurm } from '../../src/worker/slurm-check.js';
import { batchScript, parseExitCode, parseScontrol, sbatchArgs, shQuote, slurmRunner } from '../../src/worker/slurm-runner.js';

/**
 * The Slurm runner against stand-in client commands (shell scripts on PATH that record what they
 * were given and answer from files). The real cluster is test/slurm (npm run test:slurm).
 */

const SECRET = 'private-value-91x';

function command(dir: string): ComposedCommand {
  return {
    file: '/bin/echo',
    args: ["it's a \"prompt\" with $HOME and `x`", '--flag'],
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', API_KEY: SECRET, BOARD_RUN: 'card.20261202T100000000Z.a0' },
    privateNames: ['API_KEY'],
  } as unknown as ComposedCommand;
}

/** Fake sbatch/squeue/scontrol/scancel in `bin`, keeping their state in `state`. */
function fakeSlurm(): { bin: string; state: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
  const bin = path.join(root, 'bin');
  const state = path.join(root, 'state');
  fs.mkdirSync(bin);
  fs.mkdirSync(state);
  const script = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  script('sbatch', `printf '%s\\n' "$@" > ${state}/sbatch.argv; env > ${state}/sbatch.env; cat > ${state}/sbatch.script; echo RUNNING > ${state}/state; echo '4242;cluster'`);
  script('squeue', `printf '%s\\n' "$@" >> ${state}/squeue.argv; s=$(cat ${state}/state); case "$s" in GONE) ;; *) echo "$s" ;; esac`);
  script('scontrol', `printf '%s\\n' "$@" >> ${state}/scontrol.argv; echo "JobId=4242 JobName=x JobState=$(cat ${state}/final) Reason=None ExitCode=$(cat ${state}/exit)"`);
  script('scancel', `printf '%s\\n' "$@" >> ${state}/scancel.argv; echo GONE > ${state}/state; echo CANCELLED > ${state}/final; echo 0:15 > ${state}/exit`);
  return { bin, state };
}

describe('slurm runner: pure parts', () => {
  it('quotes every word of the batch script for sh, and puts no environment value in it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    const text = batchScript(command(dir));
    expect(text).toBe(`#!/bin/sh\nexec '/bin/echo' 'it'\\''s a "prompt" with $HOME and \`x\`' '--flag'\n`);
    expect(text).not.toContain(SECRET);
    expect(shQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('exports the worker environment by name only, with the harness args first', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    const args = sbatchArgs(command(dir), '/logs/x.log', 'board-x', ['--partition=gpu', '--gres=gpu:1']);
    expect(args).toEqual(['--parsable', '--partition=gpu', '--gres=gpu:1', '--job-name=board-x', `--chdir=${dir}`, '--output=/logs/x.log', '--open-mode=append', '--export=PATH,API_KEY,BOARD_RUN']);
    expect(args.join(' ')).not.toContain(SECRET);
  });

  it('reads exit codes and scontrol lines', () => {
    expect(parseExitCode('3:0')).toEqual({ exitCode: 3, signal: null });
    expect(parseExitCode('0:9')).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(parseExitCode(undefined)).toEqual({ exitCode: null, signal: null });
    const f = parseScontrol('JobId=7 JobName=board-x UserId=root(0) JobState=CANCELLED Reason=None Dependency=(null) ExitCode=0:15');
    expect(f.get('JobState')).toBe('CANCELLED');
    expect(f.get('ExitCode')).toBe('0:15');
  });
});

describe('slurm runner: against stand-in client commands', () => {
  it('submits with the values only in sbatch\'s environment, follows the job to its end and takes its exit code', async () => {
    const { bin, state } = fakeSlurm();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    const runner = slurmRunner({ args: ['--partition=debug'], pollMs: 50, clientEnv: { PATH: `${bin}:/usr/bin:/bin` } });
    const worker = await runner.start(command(dir), path.join(dir, 'x.log'));
    expect(worker.facts).toEqual({ jobId: '4242' });
    expect(fs.readFileSync(path.join(state, 'sbatch.argv'), 'utf8')).not.toContain(SECRET);
    expect(fs.readFileSync(path.join(state, 'sbatch.script'), 'utf8')).not.toContain(SECRET);
    expect(fs.readFileSync(path.join(state, 'sbatch.env'), 'utf8')).toContain(`API_KEY=${SECRET}`);
    await new Promise((r) => setTimeout(r, 150));
    expect(await worker.state?.()).toBe('RUNNING');
    fs.writeFileSync(path.join(state, 'final'), 'FAILED');
    fs.writeFileSync(path.join(state, 'exit'), '3:0');
    fs.writeFileSync(path.join(state, 'state'), 'GONE');
    expect(await worker.exited).toEqual({ exitCode: 3, signal: null, jobState: 'FAILED' });
    // The client commands never saw the private value.
    await worker.stop(1000);
    expect(fs.existsSync(path.join(state, 'scancel.argv'))).toBe(false);
  });

  it('is running only once the controller shows the job out of the queue (the time budget counts from there), or once it ended', async () => {
    const settled = (p: Promise<void>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 300))]);
    const { bin, state } = fakeSlurm();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    // sbatch's stand-in says RUNNING; a job the cluster keeps waiting says PENDING, then CONFIGURING.
    fs.writeFileSync(path.join(bin, 'sbatch'), `#!/bin/sh\ncat > /dev/null; echo PENDING > ${state}/state; echo '4242'\n`);
    const worker = await slurmRunner({ pollMs: 20, clientEnv: { PATH: `${bin}:/usr/bin:/bin` } }).start(command(dir), path.join(dir, 'x.log'));
    expect(await settled(worker.running), 'pending').toBe(false);
    fs.writeFileSync(path.join(state, 'state'), 'CONFIGURING');
    expect(await settled(worker.running), 'configuring').toBe(false);
    fs.writeFileSync(path.join(state, 'state'), 'RUNNING');
    expect(await settled(worker.running), 'running').toBe(true);
    await worker.stop(1000);
    await worker.exited;

    // Cancelled while still in the queue: gone without having run, and `running` settles too.
    const held = await slurmRunner({ pollMs: 20, clientEnv: { PATH: `${bin}:/usr/bin:/bin` } }).start(command(dir), path.join(dir, 'x.log'));
    expect(await settled(held.running)).toBe(false);
    await held.stop(1000);
    expect((await held.exited).jobState).toBe('CANCELLED');
    expect(await settled(held.running)).toBe(true);
  });

  it('stop() is scancel, once; the job then ends CANCELLED', async () => {
    const { bin, state } = fakeSlurm();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    const worker = await slurmRunner({ pollMs: 50, clientEnv: { PATH: `${bin}:/usr/bin:/bin` } }).start(command(dir), path.join(dir, 'x.log'));
    await Promise.all([worker.stop(1000), worker.stop(1000)]);
    expect(fs.readFileSync(path.join(state, 'scancel.argv'), 'utf8')).toBe('4242\n');
    expect(await worker.exited).toEqual({ exitCode: null, signal: 'SIGTERM', jobState: 'CANCELLED' });
  });

  it('a refused submission or a missing sbatch is a start error, not a crash', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-slurm-'));
    const missing = await slurmRunner({ clientEnv: { PATH: dir } }).start(command(dir), path.join(dir, 'x.log'));
    expect((await missing.exited).startError).toMatchObject({ code: 'ENOENT', message: expect.stringMatching(/sbatch could not be run/) as unknown });
    const { bin } = fakeSlurm();
    fs.writeFileSync(path.join(bin, 'sbatch'), '#!/bin/sh\necho "sbatch: error: invalid partition specified: gpu" >&2\nexit 1\n');
    const refused = await slurmRunner({ clientEnv: { PATH: `${bin}:/usr/bin:/bin` } }).start(command(dir), path.join(dir, 'x.log'));
    expect((await refused.exited).startError).toMatchObject({ code: 'ESBATCH', message: expect.stringMatching(/invalid partition/) as unknown });
  });
});

describe('slurm check (board harness check)', () => {
  it('finds the client commands and asks the controller; says what is missing', async () => {
    const { bin } = fakeSlurm();
    fs.writeFileSync(path.join(bin, 'scontrol'), '#!/bin/sh\ncase "$1" in --version) echo "slurm 22.05.8";; ping) echo "Slurmctld(primary) at abt is UP";; esac\n', { mode: 0o755 });
    const ready = await checkSlurm({ PATH: bin });
    expect(ready.ok).toBe(true);
    expect(ready.cluster.detail).toBe('Slurmctld(primary) at abt is UP');
    expect(ready.detail).toMatch(/no sacct/);
    fs.writeFileSync(path.join(bin, 'scontrol'), '#!/bin/sh\ncase "$1" in ping) echo "Slurmctld(primary) at abt is DOWN"; exit 1;; esac\n', { mode: 0o755 });
    fs.rmSync(path.join(bin, 'scancel'));
    const broken = await checkSlurm({ PATH: bin });
    expect(broken.ok).toBe(false);
    expect(broken.detail).toMatch(/missing on PATH .*: scancel; the cluster does not answer: Slurmctld\(primary\) at abt is DOWN/);
  });
});

describe('cancelling a recorded job from the board', () => {
  it('runs scancel with the job id where scancel is on PATH, with the client environment only', async () => {
    const { bin, state } = fakeSlurm();
    const { cancelRecordedJob } = await import('../../src/worker/slurm-runner.js');
    expect(await cancelRecordedJob('4242', { PATH: `${bin}:/usr/bin:/bin`, API_KEY: SECRET })).toBe(true);
    expect(fs.readFileSync(path.join(state, 'scancel.argv'), 'utf8')).toBe('4242\n');
  });

  it('does nothing without scancel, or for a job id that is not one', async () => {
    const { bin, state } = fakeSlurm();
    const { cancelRecordedJob } = await import('../../src/worker/slurm-runner.js');
    expect(await cancelRecordedJob('4242', { PATH: '/usr/bin:/bin' })).toBe(false);
    expect(await cancelRecordedJob('4242; rm -rf /', { PATH: `${bin}:/usr/bin:/bin` })).toBe(false);
    expect(fs.existsSync(path.join(state, 'scancel.argv'))).toBe(false);
  });
});
