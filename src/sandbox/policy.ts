import path from 'node:path';
import type { SandboxDeclared } from '../schema/harness.js';

/**
 * What a worker's sandbox shows (DESIGN-18, CONTRACT "Workers are confined"), and the bubblewrap
 * argument list that builds it. Pure: every fact about the host (which roots are links, which
 * board files exist, where PATH's links lead) is given by the caller (src/sandbox/host.ts).
 */

/** Where the socket dir appears inside the sandbox (bound read-only: connect() works, nothing can be replaced). */
export const SANDBOX_BOARD_DIR = '/run/board';
export const SANDBOX_APPLY_SECCOMP = `${SANDBOX_BOARD_DIR}/apply-seccomp`;
/** The sandbox's own loopback ports the init bridges to the model proxy's and the verb server's sockets. */
export const MODEL_BRIDGE_PORT = 47001;
export const VERBS_BRIDGE_PORT = 47002;

/** The system's program folders, bound read-only (or recreated as the links they are). */
export const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;
/** The few /etc entries programs need; never all of /etc (/etc/shadow is readable to root). */
export const ETC_ENTRIES = [
  'passwd',
  'group',
  'hosts',
  'nsswitch.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'localtime',
  'resolv.conf',
] as const;
/** Home folders: an empty tmpfs each. */
const HOME_ROOTS = ['/root', '/home'] as const;

export type FileKind = 'file' | 'dir';

/** Facts about this host and this board that the policy depends on (gathered by host.ts). */
export interface HostFacts {
  /** For each of SYSTEM_ROOTS: the link's target when it is a symlink, 'dir' when a folder, absent when missing. */
  readonly roots: Readonly<Record<string, string | 'dir'>>;
  /** The board's own files that exist, with their kind: masked wherever they fall under a bound path. */
  readonly boardFiles: readonly { readonly path: string; readonly kind: FileKind }[];
  /** Where the programs on the worker's PATH really live (targets of links in PATH folders, outside them). */
  readonly pathLinkTargets: readonly string[];
  /**
   * The board runs as uid 0 with CAP_SETFCAP in its bounding set: apply-seccomp's nested user
   * namespace maps uid 0, which Linux 5.12+ allows only from a creator holding CAP_SETFCAP.
   */
  readonly rootWithSetfcap: boolean;
}

export interface PolicyInput {
  /** The harness's widening (already substituted and validated: see declared.ts). */
  readonly declared: SandboxDeclared;
  readonly vault: string;
  readonly kanban: string;
  readonly harnessesDir: string;
  /** The board's dist/ (sandbox-init.js, the CLI). */
  readonly boardDist: string;
  /** The Node binary that runs the init. */
  readonly node: string;
  /** The worker's PATH (its environment's). */
  readonly workerPath: string;
  /** The board's HOME (a tmpfs over it as over /root and /home). */
  readonly boardHome?: string;
  readonly runDir: string;
  readonly socketDir: string;
  readonly applySeccomp: string;
  readonly host: HostFacts;
}

export interface SandboxPolicy {
  /** Host paths shown read-only at the same place. */
  readonly readOnly: readonly string[];
  /** Host paths shown read-write at the same place. */
  readonly readWrite: readonly string[];
  /** Board files under a bound path, hidden (an empty tmpfs for a folder, /dev/null for a file). */
  readonly masked: readonly { readonly path: string; readonly kind: FileKind }[];
  /** Hosts the worker may reach through its run's proxy, beyond its model endpoint. */
  readonly hosts: readonly string[];
  /** System roots as the host has them. */
  readonly links: readonly { readonly path: string; readonly target: string }[];
  /** Empty tmpfs folders (/tmp, /run, home folders). */
  readonly tmpfs: readonly string[];
  readonly socketDir: string;
  readonly applySeccomp: string;
  /** Capabilities kept past `--cap-drop ALL` (CAP_SETFCAP for a root board: see HostFacts). */
  readonly capAdd: readonly string[];
}

export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * A PATH folder's contribution: the folder itself, or the whole `node_modules` of a
 * `…/node_modules/.bin` entry (its links lead into the packages beside it).
 */
export function pathBinding(entry: string): string {
  const parts = entry.split('/');
  const at = parts.lastIndexOf('node_modules');
  return at > 0 && parts[at + 1] === '.bin' ? parts.slice(0, at + 1).join('/') : entry;
}

/** Each path once, normalized, sorted. */
function unique(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => path.resolve(p)))].sort();
}

export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const links: { path: string; target: string }[] = [];
  const systemDirs: string[] = [];
  for (const root of SYSTEM_ROOTS) {
    const fact = input.host.roots[root];
    if (fact === undefined) continue;
    if (fact === 'dir') systemDirs.push(root);
    else links.push({ path: root, target: fact });
  }
  const pathEntries = input.workerPath
    .split(':')
    .filter((e) => path.isAbsolute(e))
    .map(pathBinding);
  const readWrite = unique([input.vault, input.runDir, ...input.declared.write]);
  // Every path is bound at its own depth, so the deepest declaration wins: a read-only path under
  // a read-write one is read-only (KANBAN/ over the vault; a harnesses folder kept inside the vault
  // stays the dispatcher's). What the system roots already show is not bound again (a PATH entry
  // /bin/… lies behind the /bin link).
  const system = [...systemDirs, ...links.map((l) => l.path)];
  const readOnly = unique([
    ...systemDirs,
    ...ETC_ENTRIES.map((e) => `/etc/${e}`),
    ...pathEntries,
    ...input.host.pathLinkTargets,
    input.node,
    input.boardDist,
    input.harnessesDir,
    ...input.declared.read,
    input.kanban,
  ]).filter((p) => systemDirs.includes(p) || !system.some((r) => isInside(r, p)));
  const bound = [...readOnly, ...readWrite];
  const masked = input.host.boardFiles.filter((f) => bound.some((b) => isInside(b, f.path)));
  const tmpfs = ['/tmp', '/run', ...HOME_ROOTS];
  if (input.boardHome !== undefined && input.boardHome !== '/' && !tmpfs.some((t) => isInside(t, input.boardHome!))) tmpfs.push(input.boardHome);
  return {
    readOnly,
    readWrite,
    masked,
    hosts: [...input.declared.hosts],
    links,
    tmpfs,
    socketDir: input.socketDir,
    applySeccomp: input.applySeccomp,
    capAdd: capabilities(input.host),
  };
}

/**
 * What survives bubblewrap's `--cap-drop ALL`. Run by root, bubblewrap would otherwise leave the
 * worker every capability (umount(2) of a mask, a read-write remount). CAP_SETFCAP only lets
 * apply-seccomp make its nested user namespace; in there the worker's mounts are locked copies
 * (no unmount of a mask) and its namespaces filter refuses new namespaces (the scheme of
 * @anthropic-ai/sandbox-runtime's capabilityArgs).
 */
export function capabilities(host: Pick<HostFacts, 'rootWithSetfcap'>): string[] {
  return host.rootWithSetfcap ? ['CAP_SETFCAP'] : [];
}

export interface SandboxedCommand {
  /** The worker's program and arguments, as spawn would take them (looked up on `env.PATH` inside). */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** Depth of a path: parents are mounted before what they contain, so the deeper mount wins. */
function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

/**
 * The bwrap argument list (without `bwrap` itself) that runs `inner` (the init, then apply-seccomp,
 * then the worker) in the policy's sandbox with exactly `env`. Order matters to bubblewrap: each
 * mount lands on what the earlier ones built, so tmpfs folders come first, then binds from the
 * shallowest to the deepest (KANBAN/ read-only over the read-write vault), then the masks, then
 * the socket dir at /run/board and apply-seccomp on the placeholder the socket dir holds.
 */
export function bwrapArgs(policy: SandboxPolicy, command: SandboxedCommand, env: Readonly<Record<string, string>>): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  for (const cap of policy.capAdd) args.push('--cap-add', cap);
  args.push('--clearenv');
  for (const l of policy.links) args.push('--symlink', l.target, l.path);
  args.push('--proc', '/proc', '--dev', '/dev');
  for (const t of policy.tmpfs) args.push('--tmpfs', t);
  const binds = [
    ...policy.readOnly.map((p) => ({ p, flag: '--ro-bind-try' })),
    ...policy.readWrite.map((p) => ({ p, flag: '--bind-try' })),
  ].sort((a, b) => depth(a.p) - depth(b.p) || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  for (const b of binds) args.push(b.flag, b.p, b.p);
  for (const m of policy.masked) {
    if (m.kind === 'dir') args.push('--tmpfs', m.path);
    else args.push('--ro-bind', '/dev/null', m.path);
  }
  args.push('--ro-bind', policy.socketDir, SANDBOX_BOARD_DIR);
  args.push('--ro-bind', policy.applySeccomp, SANDBOX_APPLY_SECCOMP);
  args.push('--chdir', command.cwd);
  for (const [k, v] of Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) args.push('--setenv', k, v);
  args.push('--', command.file, ...command.args);
  return args;
}

/** What the run record and `harness check` show of a policy. */
export interface SandboxSummary {
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  readonly masked: readonly string[];
  readonly hosts: readonly string[];
}

export function policySummary(policy: SandboxPolicy): SandboxSummary {
  return {
    reads: policy.readOnly,
    writes: policy.readWrite,
    masked: policy.masked.map((m) => m.path),
    hosts: policy.hosts,
  };
}
