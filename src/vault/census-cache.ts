import fs from 'node:fs';
import type { z } from 'zod';
import type { Parsed } from '../core/types.js';
import { readParsed } from './read-card.js';

/**
 * A stat-validated memo of the census's reads, for the long-running `board watch` only (`tick`
 * and `dry-run` read every file in full, every round).
 *
 * Why this still is the standard's "direct read, every round: never a cached list": the list is
 * never cached. Every round still lists every folder (a profile copied in or a card moved out is
 * seen by the very next round) and takes one `lstat` of every file it lists, straight from the
 * filesystem. What is remembered is the result of a pure function, bytes → parsed front matter,
 * keyed by that file's identity and state: device, inode, size, mtime and ctime.
 * Any write to a file changes its mtime and ctime; a replacement (rename over it, an editor's
 * save-by-rename, a sync tool) changes its inode or ctime; a `touch -r` or `utimes` that resets
 * mtime still moves ctime, which nothing can set back. So an unchanged key means unchanged bytes,
 * and the round decides from exactly what a full read would have given it.
 *
 * The one gap is timestamp granularity ("racy git"): a file rewritten with the same size within
 * one tick of the filesystem's clock keeps its key. A file is therefore remembered only once its
 * ctime is `racyMs` older than the moment it was stat'ed; a younger one is read in full every
 * round until it settles. A file stat'ed as anything but a regular file (a link, a folder, gone)
 * is never remembered: `readParsed` reads it and declares its problem as usual.
 *
 * Memory stays flat: every round marks what it looked up, and `endRound` forgets every file the
 * round did not list (moved, claimed, closed, deleted). The daemon also clears the whole cache on
 * each heartbeat, so a full re-read still happens every interval whatever the stats say.
 */

/** Well above any local filesystem's timestamp granularity (coarse clock ticks of 1–10 ms). */
export const RACY_MS = 1_000;

/** A file's identity and state, as `lstat` gives them: equal, the bytes are the ones parsed. */
interface FileState {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

interface Entry {
  readonly state: FileState;
  readonly shown: string;
  readonly schema: z.ZodType;
  readonly parsed: Parsed<unknown>;
  seen: number;
}

export interface CensusCacheStats {
  hits: number;
  misses: number;
  evictions: number;
}

export interface CensusCacheOptions {
  readonly racyMs?: number;
  /** Wall clock in ms (tests step it). */
  readonly clock?: () => number;
}

export class CensusCache {
  private readonly entries = new Map<string, Entry>();
  private readonly racyMs: number;
  private readonly clock: () => number;
  private round = 0;
  readonly stats: CensusCacheStats = { hits: 0, misses: 0, evictions: 0 };

  constructor(options: CensusCacheOptions = {}) {
    this.racyMs = options.racyMs ?? RACY_MS;
    this.clock = options.clock ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Start a round's census: what it does not look up before `endRound` is forgotten. */
  beginRound(): void {
    this.round += 1;
  }

  /** Forget every file the round did not list. */
  endRound(): void {
    for (const [file, entry] of this.entries) {
      if (entry.seen !== this.round) {
        this.entries.delete(file);
        this.stats.evictions += 1;
      }
    }
  }

  /** Forget everything: the next round reads every file in full. */
  clear(): void {
    this.stats.evictions += this.entries.size;
    this.entries.clear();
  }

  /** `readParsed`, answered from memory when the file's identity and state are unchanged. */
  async read<S extends z.ZodType>(absolute: string, shown: string, schema: S): Promise<Parsed<z.output<S>>> {
    const now = this.clock();
    const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
    if (!stat || !stat.isFile()) {
      this.entries.delete(absolute);
      this.stats.misses += 1;
      return readParsed(absolute, shown, schema);
    }
    const entry = this.entries.get(absolute);
    if (entry && sameState(entry.state, stat) && entry.shown === shown && entry.schema === schema) {
      entry.seen = this.round;
      this.stats.hits += 1;
      return entry.parsed as Parsed<z.output<S>>;
    }
    this.stats.misses += 1;
    // Read after the stat: the bytes are at least as new as the key they are filed under, so a
    // change racing the read can only make the next round's key differ (and read again).
    const parsed = await readParsed(absolute, shown, schema, { seenAsFile: true });
    const settled = stat.ctimeMs <= now - this.racyMs;
    const vanished = !parsed.ok && parsed.problems.every((p) => p.reason === 'vanished while being read');
    if (settled && !vanished) {
      const state = { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
      this.entries.set(absolute, { state, shown, schema, parsed, seen: this.round });
    } else this.entries.delete(absolute);
    return parsed;
  }
}

/** Times as float milliseconds keep sub-microsecond precision at today's epoch. */
function sameState(a: FileState, b: FileState): boolean {
  return a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.dev === b.dev;
}
