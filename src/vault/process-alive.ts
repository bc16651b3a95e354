import { hostIdentity, sameProcessSpace, type HostIdentity } from './host-identity.js';

/** Whether a process with this pid exists in this PID namespace (EPERM: it exists, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Judge a pid the board recorded with its host and PID namespace (CONTRACT "Which host"): true or
 * false only when this process shares both, undefined when it cannot judge (another host, or
 * another container with the same hostname: its pid means another process here). Then only time
 * decides (the lock's staleness, `zombie_after`).
 */
export function recordedProcessAlive(
  recorded: { readonly pid: number; readonly host?: string; readonly pidns?: string },
  here: HostIdentity = hostIdentity(),
): boolean | undefined {
  if (!sameProcessSpace(recorded, here)) return undefined;
  return isProcessAlive(recorded.pid);
}
