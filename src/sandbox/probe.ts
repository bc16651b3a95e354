import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { hostFacts } from './host.js';
import { capabilities, SANDBOX_APPLY_SECCOMP } from './policy.js';

/**
 * Can a worker's sandbox start on this host? bubblewrap on the board's PATH, its namespaces
 * allowed, and the prebuilt apply-seccomp of @anthropic-ai/sandbox-runtime for this architecture,
 * proved by starting `apply-seccomp true` inside bubblewrap with the flags a worker gets. The
 * answer is kept for the process: tick, dry-run, status and lint ask it for every harness.
 */
export type SandboxProbe = { readonly ok: true; readonly bwrap: string; readonly applySeccomp: string } | { readonly ok: false; readonly reason: string };

/** The prebuilt apply-seccomp for this architecture, or why there is none. */
export function applySeccompPath(arch: string = process.arch): { file: string } | { problem: string } {
  const dir = arch === 'x64' || arch === 'arm64' ? arch : undefined;
  if (dir === undefined) return { problem: `@anthropic-ai/sandbox-runtime ships apply-seccomp for x64 and arm64 only, not ${arch}` };
  let pkg: string;
  try {
    pkg = createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json');
  } catch {
    return { problem: 'the dependency @anthropic-ai/sandbox-runtime is not installed (reinstall atomic-board: npm install)' };
  }
  const file = path.join(path.dirname(pkg), 'vendor', 'seccomp', dir, 'apply-seccomp');
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return { problem: `${file} is missing or not executable (reinstall atomic-board: npm install)` };
  }
  return { file };
}

export function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** What the probe runs: bwrap with a worker's flags around `apply-seccomp true`, or why it cannot. */
type ProbeCommand = { readonly bwrap: string; readonly args: string[]; readonly applySeccomp: string; readonly rootWithoutSetfcap: boolean } | { readonly ok: false; readonly reason: string };

function probeCommand(options: { platform?: NodeJS.Platform; pathVar?: string; arch?: string }): ProbeCommand {
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux') {
    return {
      ok: false,
      reason: `the worker sandbox is built with bubblewrap on Linux; on ${platform} it is not implemented yet (macOS Seatbelt is planned): run the board on Linux, or write \`sandbox: none\` in the harness to run its workers unconfined, knowingly`,
    };
  }
  const bwrap = findOnPath('bwrap', options.pathVar ?? process.env.PATH ?? '/usr/bin:/bin');
  if (bwrap === undefined) return { ok: false, reason: 'bubblewrap (bwrap) is not on the board\'s PATH: install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)' };
  const seccomp = applySeccompPath(options.arch);
  if ('problem' in seccomp) return { ok: false, reason: `no seccomp filter for this host: ${seccomp.problem}` };
  const host = hostFacts('', { configFile: '/nonexistent', logsDir: '/nonexistent' });
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  for (const cap of capabilities(host)) args.push('--cap-add', cap);
  args.push('--clearenv', '--setenv', 'PATH', '/usr/bin:/bin');
  for (const [root, fact] of Object.entries(host.roots)) {
    if (fact === 'dir') args.push('--ro-bind', root, root);
    else args.push('--symlink', fact, root);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/run', '--ro-bind', seccomp.file, SANDBOX_APPLY_SECCOMP, '--', SANDBOX_APPLY_SECCOMP, 'true');
  return { bwrap, args, applySeccomp: seccomp.file, rootWithoutSetfcap: !host.rootWithSetfcap && process.geteuid?.() === 0 };
}

/** The probe's answer from how its bwrap run ended. */
function probeVerdict(command: Exclude<ProbeCommand, { ok: false }>, run: { error?: Error | undefined; status: number | null; signal: string | null; stderr: string }): SandboxProbe {
  const { bwrap } = command;
  if (run.error) return { ok: false, reason: `${bwrap} could not be run: ${run.error.message}` };
  if (run.status !== 0) {
    const said = run.stderr.trim().split('\n').slice(-2).join(' ') || `exit ${run.status ?? run.signal}`;
    return {
      ok: false,
      reason: `bubblewrap cannot make the worker's namespaces here (${said}): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or, in a container, run it with user namespaces permitted (docker --security-opt seccomp=unconfined --cap-add SYS_ADMIN)${command.rootWithoutSetfcap ? '; running as root without CAP_SETFCAP: grant it, or run the board as another user' : ''}`,
    };
  }
  return { ok: true, bwrap, applySeccomp: command.applySeccomp };
}

const PROBE_TIMEOUT_MS = 10_000;

/** The probe itself, uncached (tests call it with another PATH or platform). */
export function probeSandbox(options: { platform?: NodeJS.Platform; pathVar?: string; arch?: string } = {}): SandboxProbe {
  const command = probeCommand(options);
  if ('ok' in command) return command;
  const run = spawnSync(command.bwrap, command.args, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  return probeVerdict(command, { error: run.error, status: run.status, signal: run.signal, stderr: `${run.stderr ?? ''}` });
}

/** The same probe, its bwrap run in the background: the census reads while it runs. */
function probeSandboxInBackground(): Promise<SandboxProbe> {
  const command = probeCommand({});
  if ('ok' in command) return Promise.resolve(command);
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(command.bwrap, command.args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
    let error: Error | undefined;
    child.once('error', (e) => (error = e));
    child.once('close', (status, signal) => resolve(probeVerdict(command, { error, status, signal, stderr })));
  });
}

let cached: SandboxProbe | undefined;

let background: Promise<SandboxProbe> | undefined;

/** The probe, made once per process (the background one's answer when it was started first). */
export function sandboxProbe(): SandboxProbe {
  cached ??= probeSandbox();
  return cached;
}

/**
 * Start the probe in the background, once per process, and have its answer in `sandboxProbe()`
 * once the promise settles. A dry-run or tick calls this before its census: the probe's bwrap
 * (tens of milliseconds) then runs on another core while the cards are read, not after them.
 */
export function startSandboxProbe(): Promise<SandboxProbe> {
  if (cached) return Promise.resolve(cached);
  background ??= probeSandboxInBackground().then((answer) => (cached ??= answer));
  return background;
}
