import fs from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log.js';
import type { VaultLayout } from '../vault/layout.js';
import { isCardFileName } from '../vault/layout.js';
import { FolderWatcher } from './folder-watcher.js';
import { isIgnoredPath, isRelevantEvent, WATCHED_KANBAN, type WatchEvent } from './relevance.js';

export interface VaultWatcherOptions {
  /** chokidar's polling mode: the only one that works on network filesystems. */
  readonly poll: boolean;
  readonly pollIntervalMs: number;
  /** How long a file's size must hold still before its event is reported (writes finished). */
  readonly stableMs: number;
  readonly logger: Logger;
  readonly onChange: (event: WatchEvent, relative: string) => void;
}

/**
 * chokidar over a vault's `KANBAN/` and `AGENTS/`. An accelerator over the heartbeat, never the
 * only trigger: `ensure` is called before every round and (re)establishes the watcher when there
 * is none, when the vault moved, or when a watched folder was replaced (a vault that vanished and
 * came back, a sync tool that recreated a folder) — chokidar would otherwise stay silently deaf.
 *
 * Except in polling mode, the KANBAN state folders (`pending/`, `done/`, `scheduled/`),
 * `KANBAN/` itself and its name in the vault root are watched with `FolderWatcher` (the platform's
 * own notification, one `lstat` per named change) and kept out of chokidar, whose cost per change
 * grows with the folder.
 */
export class VaultWatcher {
  private watcher: FSWatcher | undefined;
  private folders: FolderWatcher[] = [];
  private root: string | undefined;
  private identity: string | undefined;

  constructor(private readonly options: VaultWatcherOptions) {}

  get active(): boolean {
    return this.watcher !== undefined;
  }

  async ensure(layout: VaultLayout): Promise<'kept' | 'started' | 'restarted'> {
    const identity = await folderIdentity(layout);
    if (this.watcher && this.root === layout.root && this.identity === identity) return 'kept';
    const had = this.watcher !== undefined;
    await this.close();
    const root = layout.root;
    const native = !this.options.poll;
    // The vault root, pruned by `ignored` to KANBAN/ and AGENTS/: either may appear later.
    const watcher = watch(root, {
      ignoreInitial: true,
      persistent: true,
      depth: 2,
      usePolling: this.options.poll,
      interval: this.options.pollIntervalMs,
      binaryInterval: this.options.pollIntervalMs,
      awaitWriteFinish: { stabilityThreshold: this.options.stableMs, pollInterval: Math.max(10, Math.floor(this.options.stableMs / 4)) },
      ignored: (p: string) => {
        const relative = toRelative(root, p);
        // Natively, not even `KANBAN/` itself: chokidar lists a folder again on every change in
        // it, and each round's lock, claim locks and run records change `KANBAN/` a few times a
        // drop (~4 ms of this thread each time on a 10k-card board, beside the drop's round).
        return isIgnoredPath(relative) || (native && (relative === 'KANBAN' || relative.startsWith('KANBAN/')));
      },
    });
    watcher.on('all', (event, p) => {
      const relative = toRelative(root, p);
      if (isRelevantEvent(event as WatchEvent, relative)) this.options.onChange(event as WatchEvent, relative);
    });
    watcher.on('error', (error) => this.options.logger.warn({ err: error }, 'watcher error: the heartbeat keeps the board beating'));
    this.watcher = watcher;
    this.root = root;
    this.identity = identity;
    if (native) this.watchFolders(layout);
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    return had ? 'restarted' : 'started';
  }

  /** `KANBAN/` (its state folders appearing or vanishing) and each state folder's cards. */
  private watchFolders(layout: VaultLayout): void {
    const onError = (error: Error) => this.options.logger.warn({ err: error }, 'folder watcher error: the heartbeat keeps the board beating');
    const report = (event: WatchEvent, relative: string) => {
      if (isRelevantEvent(event, relative)) this.options.onChange(event, relative);
    };
    const specs: { dir: string; accept: (name: string) => boolean; onEvent: (event: 'add' | 'change' | 'unlink', name: string) => void }[] = [
      {
        // `KANBAN/` itself appearing or vanishing (chokidar does not look at it natively).
        dir: layout.root,
        accept: (name) => name === 'KANBAN',
        onEvent: (event, name) => {
          if (event !== 'change') this.options.onChange(event === 'add' ? 'addDir' : 'unlinkDir', name);
        },
      },
      {
        dir: layout.kanban,
        accept: (name) => WATCHED_KANBAN.has(name),
        // A state folder that appears or vanishes: the next round's `ensure` re-watches it.
        onEvent: (event, name) => {
          if (event !== 'change') this.options.onChange(event === 'add' ? 'addDir' : 'unlinkDir', `KANBAN/${name}`);
        },
      },
      ...[...WATCHED_KANBAN].map((folder) => ({
        dir: path.join(layout.kanban, folder),
        accept: isCardFileName,
        onEvent: (event: 'add' | 'change' | 'unlink', name: string) => report(event, `KANBAN/${folder}/${name}`),
      })),
    ];
    for (const spec of specs) {
      const folder = new FolderWatcher({
        ...spec,
        stableMs: this.options.stableMs,
        onUnnamed: () => this.options.onChange('change', toRelative(layout.root, spec.dir)),
        onError,
      });
      try {
        folder.start();
        this.folders.push(folder);
      } catch (error) {
        // Not there yet: `KANBAN/`'s own watcher (or the heartbeat) sees it appear.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error as Error);
      }
    }
  }

  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = undefined;
    this.identity = undefined;
    for (const folder of this.folders) folder.close();
    this.folders = [];
    if (watcher) await watcher.close().catch((error: Error) => this.options.logger.warn({ err: error }, 'could not close the watcher'));
  }
}

function toRelative(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}

/** Device and inode of each watched folder: changes when one is replaced or appears. */
async function folderIdentity(layout: VaultLayout): Promise<string> {
  const ids = await Promise.all(
    [layout.root, layout.kanban, layout.pending, layout.done, layout.scheduled, layout.agents].map(async (dir) => {
      try {
        const s = await fs.stat(dir);
        return `${s.dev}:${s.ino}`;
      } catch {
        return '-';
      }
    }),
  );
  return ids.join('|');
}
