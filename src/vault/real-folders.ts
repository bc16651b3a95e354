import fs from 'node:fs/promises';
import path from 'node:path';
import { RoundError } from '../errors.js';
import type { VaultLayout } from './layout.js';
import { locksDir } from './card-lock.js';
import { runsDir } from './runs.js';

/**
 * The board's own folders must be folders of the vault, not symbolic links: through a linked
 * `pending/` an outside card would be claimed and pulled in, through a linked `in-progress/` a
 * claimed card written outside, through a linked `AGENTS/` outside profiles loaded (CONTRACT "What
 * the census reads"). A missing folder is fine (the board makes or skips it); a link, or anything
 * else that is not a folder, is refused with its path and what to do.
 */
export async function assertRealFolders(layout: VaultLayout): Promise<void> {
  const folders = [layout.kanban, layout.agents, layout.scheduled, layout.pending, layout.inProgress, layout.done, layout.archive, runsDir(layout.kanban), locksDir(layout.kanban)];
  // Archive months too (`archive/2026-11/`): `board archive` writes into them.
  const months = (await fs.readdir(layout.archive, { withFileTypes: true }).catch(() => [])).filter((e) => e.isSymbolicLink());
  folders.push(...months.map((m) => path.join(layout.archive, m.name)));
  const problems = (await Promise.all(folders.map(folderProblem))).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new RoundError(problems.join('\n'));
}

/** Why `dir` cannot serve as one of the board's folders, or undefined when it can (or is absent). */
export async function folderProblem(dir: string): Promise<string | undefined> {
  let stat;
  try {
    stat = await fs.lstat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : `${dir}: cannot be read (${code ?? (error as Error).message})`;
  }
  if (stat.isSymbolicLink()) {
    const target = await fs.readlink(dir).catch(() => '?');
    return `${dir} is a symbolic link (to ${target}): the board does not read or write through links; replace it with a real folder of the vault`;
  }
  if (!stat.isDirectory()) return `${dir} is not a folder: move it away so the board can use the name`;
  return undefined;
}

/** A profile's folder `AGENTS/<name>` as a link is refused the same way (one profile, not the round). */
export function isLinkedProfileFolder(agentsDir: string, entry: { name: string; isSymbolicLink(): boolean }): string | undefined {
  if (!entry.isSymbolicLink()) return undefined;
  return `${path.join(agentsDir, entry.name)} is a symbolic link: the board does not load profiles through links; make it a real folder`;
}
