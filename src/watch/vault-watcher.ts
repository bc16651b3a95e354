import fs from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log.js';
import type { VaultLayout } from '../vault/layout.js';
import { isIgnoredPath, isRelevantEvent, type WatchEvent } from './relevance.js';

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
 */
export class VaultWatcher {
  private watcher: FSWatcher | undefined;
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
    // The vault root, pruned by `ignored` to KANBAN/ and AGENTS/: either may appear later.
    const watcher = watch(root, {
      ignoreInitial: true,
      persistent: true,
      depth: 2,
      usePolling: this.options.poll,
      interval: this.options.pollIntervalMs,
      binaryInterval: this.options.pollIntervalMs,
      awaitWriteFinish: { stabilityThreshold: this.options.stableMs, pollInterval: Math.max(10, Math.floor(this.options.stableMs / 4)) },
      ignored: (p: string) => isIgnoredPath(toRelative(root, p)),
    });
    watcher.on('all', (event, p) => {
      const relative = toRelative(root, p);
      if (isRelevantEvent(event as WatchEvent, relative)) this.options.onChange(event as WatchEvent, relative);
    });
    watcher.on('error', (error) => this.options.logger.warn({ err: error }, 'watcher error: the heartbeat keeps the board beating'));
    this.watcher = watcher;
    this.root = root;
    this.identity = identity;
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    return had ? 'restarted' : 'started';
  }

  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = undefined;
    this.identity = undefined;
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
