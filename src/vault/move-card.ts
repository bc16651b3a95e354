import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export class MoveClashError extends Error {
  constructor(readonly from: string, readonly to: string) {
    super(`cannot move ${from}: ${to} already exists (neither file was touched)`);
    this.name = 'MoveClashError';
  }
}

/** The board's folder is on a filesystem without hard links: exclusive moves are impossible there. */
export class NoHardLinksError extends Error {
  readonly code = 'ENOHARDLINKS';
  constructor(readonly dir: string, cause: string) {
    super(
      `${dir} is on a filesystem without hard links (link(2) failed: ${cause}); the board needs them to move and ` +
        'create files without ever replacing one (claims, closes, the round lock, run records). Put the board on a ' +
        'local filesystem, NFS or sshfs (see docs/scale.md), not on SMB/CIFS or a FUSE filesystem without link()',
    );
    this.name = 'NoHardLinksError';
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? '';
}

/** What link(2) says when the filesystem has no hard links at all (FUSE SMB: EPERM). */
const NO_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

function withCode(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR' || codeOf(error) === 'ESTALE') return false;
    throw error;
  }
}

/** Per folder (in this process): whether link(2) works there. Probed once, on a temp name. */
const linksWork = new Map<string, Promise<boolean>>();

function probeLinks(dir: string): Promise<boolean> {
  let known = linksWork.get(dir);
  if (!known) {
    known = (async () => {
      // Temp-file names (`.<name>.<pid>.<hex>.tmp`): hidden from the census, swept if a crash leaves them.
      const tail = `${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const [file, link] = [path.join(dir, `.board-link-probe.${tail}`), path.join(dir, `.board-link-probe-2.${tail}`)];
      await fs.writeFile(file, '', { flag: 'wx' });
      try {
        await fs.link(file, link);
        return true;
      } catch (error) {
        if (NO_LINK_CODES.has(codeOf(error))) return false;
        throw error;
      } finally {
        await fs.rm(link, { force: true }).catch(() => undefined);
        await fs.rm(file, { force: true }).catch(() => undefined);
      }
    })();
    // A failed probe (the folder vanished, an I/O error) is not remembered: the next one asks again.
    known.catch(() => linksWork.delete(dir));
    linksWork.set(dir, known);
  }
  return known;
}

/** Marker under KANBAN/ made by link(2): its presence is the cached answer "this board has hard links". */
export const HARDLINK_MARKER = '.board-hardlinks-ok';

/**
 * Refuse a board whose folder cannot hard-link, naming the path (CONTRACT: claims are exclusive
 * moves). Cached on disk: the marker exists only if a link(2) made it, so a board checked once costs
 * one lstat per round; a process remembers the answer too (`board watch` checks once).
 */
const boardsChecked = new Set<string>();

export async function assertHardLinks(kanbanDir: string): Promise<void> {
  if (boardsChecked.has(kanbanDir)) return;
  const marker = path.join(kanbanDir, HARDLINK_MARKER);
  if (!(await exists(marker))) {
    const temp = path.join(kanbanDir, `.${HARDLINK_MARKER}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temp, 'made by link(2): this board has hard links\n', { flag: 'wx' });
    try {
      await fs.link(temp, marker);
    } catch (error) {
      // Another process linked it first (EEXIST, or EPERM where sshfs maps every failure so).
      if (!(await exists(marker))) {
        if (NO_LINK_CODES.has(codeOf(error))) throw new NoHardLinksError(kanbanDir, codeOf(error));
        throw error;
      }
    } finally {
      await fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }
  boardsChecked.add(kanbanDir);
}

/**
 * link(2) that never replaces, with the errors of a lost race told apart from everything else,
 * as a network filesystem reports them: sshfs maps every SFTP failure to EPERM (a name that
 * exists, a source another process just moved), NFS may say ESTALE for a file removed under
 * it. Throws EEXIST when `to` exists, ENOENT when `from` is gone, NoHardLinksError where the
 * folder cannot link at all, else the link's own error.
 */
export async function linkNoReplace(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.link(from, to);
      return;
    } catch (error) {
      const code = codeOf(error);
      if (code === 'EEXIST') throw error;
      if (code === 'ENOENT' || code === 'ESTALE') {
        if (await exists(to)) throw withCode(`${to} already exists`, 'EEXIST');
        if (!(await exists(from))) throw withCode(`${from} is gone (moved by another process)`, 'ENOENT');
        throw error;
      }
      if (!NO_LINK_CODES.has(code) && code !== 'EACCES') throw error;
      if (await exists(to)) throw withCode(`${to} already exists`, 'EEXIST');
      if (!(await exists(from))) throw withCode(`${from} is gone (moved by another process)`, 'ENOENT');
      if (!(await probeLinks(path.dirname(to)))) throw new NoHardLinksError(path.dirname(to), code);
      // Links work here, both names are as expected, and still it failed: a race whose state has
      // already changed back (sshfs reports a transient clash as EPERM). Once more, then give up.
      if (attempt >= 1) throw error;
    }
  }
}
