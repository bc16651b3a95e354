import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BoardError, EXIT } from '../errors.js';
import { readBoardFile } from '../vault/board-file.js';
import { isReachable } from '../vault/exists.js';
import { inFolder, removeFile } from '../vault/file-ops.js';

/**
 * A content-addressed object store: `<logs>/objects/ab/cdef…` holds the bytes whose sha256 is
 * `abcdef…`. Objects are written exclusively (a temp file hard-linked to the name, so a reader never
 * sees half an object) and idempotently (storing the same bytes twice is a no-op).
 */

export const HASH = /^[0-9a-f]{64}$/;

export function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** An object the record names is not in the store: exit 1. */
export class ObjectMissing extends BoardError {
  constructor(message: string) {
    super(message, EXIT.failure);
  }
}

/** An object whose bytes no longer hash to its name: exit 1, naming the file. */
export class ObjectCorrupted extends BoardError {
  constructor(
    readonly file: string,
    readonly actual: string,
  ) {
    super(`object ${file} does not match its name: its bytes hash to ${actual.slice(0, 12)}…, so it was changed after the board stored it; it is not shown, compared or replayed (restore it or remove the run)`, EXIT.failure);
  }
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
    const temp = path.join(path.dirname(target), `.${hash.slice(2, 10)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await inFolder(path.dirname(target), () => fs.writeFile(temp, bytes, { flag: 'wx', mode: 0o444 }));
    try {
      await fs.link(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await removeFile(temp);
    }
    return hash;
  }

  /**
   * The object's bytes, checked against its name: what anyone changed in the store since it was
   * written is refused (ObjectCorrupted), never shown, compared or replayed as the record.
   */
  async get(hash: string): Promise<Buffer> {
    const file = this.pathOf(hash);
    let bytes: Buffer;
    try {
      bytes = await readBoardFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectMissing(`object ${hash.slice(0, 12)} is not in ${this.dir}`);
      throw error;
    }
    const actual = sha256(bytes);
    if (actual !== hash) throw new ObjectCorrupted(file, actual);
    return bytes;
  }

  async getText(hash: string): Promise<string> {
    return (await this.get(hash)).toString('utf8');
  }

  async has(hash: string): Promise<boolean> {
    return isReachable(this.pathOf(hash));
  }

  /**
   * Check every stored object a run's components name (ObjectCorrupted on the first that does not
   * match its name); one no longer in the store is left for the caller to say.
   */
  async checkComponents(components: readonly { readonly hash?: string | undefined }[]): Promise<void> {
    for (const c of components) if (c.hash && HASH.test(c.hash) && (await this.has(c.hash))) await this.get(c.hash);
  }
}

