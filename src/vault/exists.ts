import fs from 'node:fs/promises';

/** Whether a path can be reached (links followed): a dangling link is not there. */
export async function isReachable(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
