import fs from 'node:fs';
import os from 'node:os';

/**
 * Who "this host" is when judging a recorded pid (CONTRACT "Which host"): the hostname and the
 * PID namespace. Containers often share a hostname while their pids mean different processes, so
 * a pid is judged alive or dead only by a process with the same hostname **and** the same PID
 * namespace (the inode of `/proc/self/ns/pid`). Where `/proc` has no namespace link (macOS), the
 * namespace is `undefined` and the hostname alone decides, as before.
 */
export interface HostIdentity {
  readonly host: string;
  /** `pid:[4026531836]` as the kernel names it, or undefined where it cannot be read. */
  readonly pidns?: string;
}

let cached: HostIdentity | undefined;

export function hostIdentity(): HostIdentity {
  if (cached) return cached;
  let pidns: string | undefined;
  try {
    pidns = fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    pidns = undefined;
  }
  cached = { host: os.hostname(), ...(pidns !== undefined ? { pidns } : {}) };
  return cached;
}

/**
 * True when a pid recorded with `recorded` can be judged here. A record without a namespace
 * (written by an older board, or on a system without /proc) is judged by hostname only when this
 * host has no namespace either: otherwise it might be another container's pid.
 */
export function sameProcessSpace(recorded: { readonly host?: string; readonly pidns?: string }, here: HostIdentity = hostIdentity()): boolean {
  if (recorded.host !== here.host) return false;
  return recorded.pidns === here.pidns;
}
