import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { crashPoint } from './crash-seam.js';
import { linkNoReplace } from './move-card.js';

/** A temp file beside the target (same filesystem, so the rename is atomic), hidden from census. */
function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Exactly the names `tempPathFor` makes: `.<name>.<pid>.<8 hex>.tmp`. */
const TEMP_NAME = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;

export function isBoardTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

async function writeTemp(target: string, text: string): Promise<string> {
  const temp = tempPathFor(target);
  const handle = await fs.open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

/** Replace a file's content through a temp file and a rename: readers see old or new, never half. */
export async function writeFileAtomic(target: string, text: string): Promise<void> {
  const temp = await writeTemp(target, text);
  crashPoint('write:temp');
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/**
 * Create a file that must not exist yet, complete or not at all: the content goes to a temp file,
 * which is then hard-linked to the name (link fails with EEXIST instead of replacing).
 */
export async function createFileExclusive(target: string, text: string): Promise<void> {
  const temp = await writeTemp(target, text);
  try {
    await linkNoReplace(temp, target);
  } finally {
    await fs.rm(temp, { force: true });
  }
}
