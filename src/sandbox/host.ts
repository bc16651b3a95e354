import fs from 'node:fs';
import path from 'node:path';
import { isInside, SYSTEM_ROOTS, type FileKind, type HostFacts } from './policy.js';

/**
 * The host facts a sandbox policy depends on, read from the filesystem (policy.ts stays pure).
 */

export interface BoardFiles {
  readonly configFile: string;
  readonly privateEnvFile?: string | undefined;
  readonly logsDir: string;
}

function kindOf(file: string): FileKind | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function systemRoots(): Record<string, string | 'dir'> {
  const roots: Record<string, string | 'dir'> = {};
  for (const root of SYSTEM_ROOTS) {
    try {
      const stat = fs.lstatSync(root);
      if (stat.isSymbolicLink()) roots[root] = fs.readlinkSync(root);
      else if (stat.isDirectory()) roots[root] = 'dir';
    } catch {
      // Not on this host.
    }
  }
  return roots;
}

/** At most this many links are followed per PATH folder: a huge bin/ is not walked at every start. */
const MAX_LINKS_PER_FOLDER = 500;

/**
 * Where the programs of the worker's PATH folders (outside the system roots) really are: a link
 * `bin/claude -> ../lib/node_modules/@anthropic-ai/claude-code/cli.js` needs that package (its
 * whole node_modules, for its dependencies), a link to a native build (`~/.local/bin/claude ->
 * ~/.local/share/claude/versions/X`) needs that file. Only the targets, never their neighbours.
 */
export function pathLinkTargets(workerPath: string): string[] {
  const system = SYSTEM_ROOTS as readonly string[];
  const out = new Set<string>();
  for (const dir of workerPath.split(':')) {
    if (!path.isAbsolute(dir) || system.some((r) => isInside(r, dir))) continue;
    let names: string[];
    try {
      names = fs.readdirSync(dir).slice(0, MAX_LINKS_PER_FOLDER);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      let target: string;
      try {
        if (!fs.lstatSync(file).isSymbolicLink()) continue;
        target = fs.realpathSync(file);
      } catch {
        continue;
      }
      if (isInside(dir, target) || system.some((r) => isInside(r, target))) continue;
      const parts = target.split('/');
      const at = parts.indexOf('node_modules');
      out.add(at > 0 ? parts.slice(0, at + 1).join('/') : target);
    }
  }
  return [...out].sort();
}

/** Bit 31 of the capability sets is CAP_SETFCAP. */
const CAP_SETFCAP_BIT = 31n;

/** uid 0 with CAP_SETFCAP in the bounding set (see HostFacts.rootWithSetfcap). */
export function rootWithSetfcap(): boolean {
  if (process.geteuid?.() !== 0) return false;
  try {
    const bounding = /^CapBnd:\s*([0-9a-fA-F]+)\s*$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return bounding !== null && ((BigInt(`0x${bounding[1]!}`) >> CAP_SETFCAP_BIT) & 1n) === 1n;
  } catch {
    return false;
  }
}

export function hostFacts(workerPath: string, board: BoardFiles): HostFacts {
  const boardFiles: { path: string; kind: FileKind }[] = [];
  for (const file of [board.configFile, board.privateEnvFile, board.logsDir]) {
    if (file === undefined) continue;
    const kind = kindOf(file);
    if (kind !== undefined) boardFiles.push({ path: path.resolve(file), kind });
  }
  return { roots: systemRoots(), boardFiles, pathLinkTargets: pathLinkTargets(workerPath), rootWithSetfcap: rootWithSetfcap() };
}
