import { spawnSync } from 'node:child_process';
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

/** The probe itself, uncached (tests call it with another PATH or platform). */
export function probeSandbox(options: { platform?: NodeJS.Platform; pathVar?: string; arch?: string } = {}): SandboxProbe {
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
  const run = spawnSync(bwrap, args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) return { ok: false, reason: `${bwrap} could not be run: ${run.error.message}` };
  if (run.status !== 0) {
    const said = `${run.stderr ?? ''}`.trim().split('\n').slice(-2).join(' ') || `exit ${run.status ?? run.signal}`;
    return {
      ok: false,
      reason: `bubblewrap cannot make the worker's namespaces here (${said}): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or, in a container, run it with user namespaces permitted (docker --security-opt seccomp=unconfined --cap-add SYS_ADMIN)${host.rootWithSetfcap || process.geteuid?.() !== 0 ? '' : '; running as root without CAP_SETFCAP: grant it, or run the board as another user'}`,
    };
  }
  return { ok: true, bwrap, applySeccomp: seccomp.file };
}

let cached: SandboxProbe | undefined;

/** The probe, made once per process. */
export function sandboxProbe(): SandboxProbe {
  cached ??= probeSandbox();
  return cached;
}
