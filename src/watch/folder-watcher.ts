import fs from 'node:fs';
import path from 'node:path';
import { realTimers, type Timers } from './scheduler.js';

/**
 * One folder watched with the platform's own notification (`fs.watch`: inotify, FSEvents,
 * ReadDirectoryChangesW), which names the entry that changed. `board watch` uses it for the
 * KANBAN state folders instead of chokidar, because chokidar answers every change in a folder by
 * listing it again and `lstat`-ing every entry (about 300 ms and 10k threadpool jobs for a
 * 10k-card `pending/`, at most once a second per folder, so a change during one listing waited
 * for the next); this costs one `lstat` of the named entry. Not used in polling mode (network
 * filesystems), where chokidar keeps the whole vault.
 *
 * Writes finished: an entry is reported once nothing has written to it for `stableMs`, judged
 * by its own mtime, the same rule as chokidar's `awaitWriteFinish` but counted from the last
 * write instead of from the event: a card renamed into the folder long after it was written is
 * reported at once, a card written just before its rename is reported `stableMs` after its last
 * write, and a card still being written is reported only once its writer pauses that long. A
 * mtime in the future (a clock skew) falls back to "the same stat for `stableMs`". Only entries
 * still settling are remembered (a timer each); nothing grows with the folder.
 */

export type FolderEvent = 'add' | 'change' | 'unlink';

export interface FolderWatcherOptions {
  readonly dir: string;
  readonly stableMs: number;
  /** Which entry names are worth reporting (the others are never even stat'ed). */
  readonly accept: (name: string) => boolean;
  readonly onEvent: (event: FolderEvent, name: string) => void;
  /** The platform reported a change without a name: something in the folder changed. */
  readonly onUnnamed: () => void;
  readonly onError: (error: Error) => void;
  readonly timers?: Timers;
}

interface Settling {
  event: FolderEvent;
  timer: unknown;
  /** The stat last seen, and when it was first seen unchanged. */
  key: string;
  since: number;
}

export class FolderWatcher {
  private watcher: fs.FSWatcher | undefined;
  private readonly settling = new Map<string, Settling>();
  private readonly timers: Timers;

  constructor(private readonly options: FolderWatcherOptions) {
    this.timers = options.timers ?? realTimers;
  }

  /** Start watching; throws when the folder cannot be watched (missing, not a folder). */
  start(): void {
    const watcher = fs.watch(this.options.dir, { persistent: true }, (type, filename) => {
      if (filename === null || filename === undefined) {
        this.options.onUnnamed();
        return;
      }
      const name = filename.toString();
      if (!this.options.accept(name)) return;
      this.observe(name, type === 'change' ? 'change' : 'add');
    });
    watcher.on('error', (error) => this.options.onError(error));
    this.watcher = watcher;
  }

  /** Entries waiting for their writes to finish (for tests). */
  get settlingCount(): number {
    return this.settling.size;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    for (const s of this.settling.values()) this.timers.clear(s.timer);
    this.settling.clear();
  }

  /** An event named `name`: report it once its writes have finished (or at once if it is gone). */
  observe(name: string, event: FolderEvent): void {
    const current = this.settling.get(name);
    if (current) {
      this.timers.clear(current.timer);
      // An entry that appeared and was then written to is still new.
      if (current.event === 'add') event = 'add';
    }
    this.check(name, event, current);
  }

  private check(name: string, event: FolderEvent, previous: Settling | undefined): void {
    if (!this.watcher) return;
    const now = this.timers.now();
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(path.join(this.options.dir, name), { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (!stat) {
      this.settling.delete(name);
      this.options.onEvent('unlink', name);
      return;
    }
    const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    const since = previous && previous.key === key ? previous.since : now;
    const age = now - stat.mtimeMs;
    // Quiet since its last write, or (a mtime ahead of this clock) unchanged for as long.
    // A folder or a link has no writes to wait for.
    const quietFor = stat.isFile() ? Math.max(age, now - since) : Infinity;
    if (quietFor >= this.options.stableMs) {
      this.settling.delete(name);
      this.options.onEvent(event, name);
      return;
    }
    const wait = age >= 0 ? this.options.stableMs - age : this.options.stableMs - (now - since);
    const settling: Settling = { event, key, since, timer: undefined };
    settling.timer = this.timers.set(() => this.check(name, event, settling), Math.max(1, Math.ceil(wait)));
    this.settling.set(name, settling);
  }
}
