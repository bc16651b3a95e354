import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isReachable } from '../vault/exists.js';

/**
 * A content-addressed object store: `<logs>/objects/ab/cdef…` holds the bytes whose sha256 is
 * `abcdef…`. Objects are written exclusively (a temp file hard-linked to the name, so a reader never
 * sees half an object) and idempotently (storing the same bytes twice is a no-op).
 */

export const HASH = /^[0-9a-f]{64}$/;

export function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

export class ObjectStore {
  readonly dir: string;

  constructor(logsDir: string) {
    this.dir = path.join(logsDir, 'objects');
  }

  pathOf(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not a sha256 object id: ${JSON.stringify(hash)}`);
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Store content and return its hash; existing objects are left as they are. */
  async put(content: string | Uint8Array): Promise<string> {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const hash = sha256(bytes);
    const target = this.pathOf(hash);
    if (await isReachable(target)) return hash;
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.${hash.slice(2, 10)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temp, bytes, { flag: 'wx', mode: 0o444 });
    try {
      await fs.link(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
    return hash;
  }

  async get(hash: string): Promise<Buffer> {
    try {
      return await fs.readFile(this.pathOf(hash));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`object ${hash.slice(0, 12)} is not in ${this.dir}`);
      throw error;
    }
  }

  async getText(hash: string): Promise<string> {
    return (await this.get(hash)).toString('utf8');
  }

  async has(hash: string): Promise<boolean> {
    return isReachable(this.pathOf(hash));
  }
}

