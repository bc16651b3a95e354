import fs from 'node:fs/promises';
import { crashPoint } from './crash-seam.js';

export class MoveClashError extends Error {
  constructor(readonly from: string, readonly to: string) {
    super(`cannot move ${from}: ${to} already exists (neither file was touched)`);
    this.name = 'MoveClashError';
  }
}

/**
 * Move a file without ever replacing one already at the destination. `rename(2)` replaces in
 * silence, so: hard-link to the new name (fails with EEXIST), then unlink the old name. A crash
 * between the two leaves the same inode under both names, which `repairDoubleLinks` undoes.
 * Only one of two racing movers can unlink the source: the loser gets ENOENT.
 */
export async function moveNoReplace(from: string, to: string): Promise<void> {
  try {
    await fs.link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new MoveClashError(from, to);
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      await copyExclusive(from, to);
    } else {
      throw error;
    }
  }
  crashPoint('move:linked');
  try {
    await fs.unlink(from);
  } catch (error) {
    // Someone else moved the source first: the destination we linked is theirs to keep only if it
    // is the same file; ours is a duplicate name for their card. Undo it.
    await fs.unlink(to).catch(() => undefined);
    throw error;
  }
}

/** For filesystems without hard links: exclusive create of the destination, then copy. */
async function copyExclusive(from: string, to: string): Promise<void> {
  try {
    await fs.copyFile(from, to, fs.constants.COPYFILE_EXCL);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new MoveClashError(from, to);
    throw error;
  }
}
