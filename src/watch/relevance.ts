import { isCardFileName } from '../vault/layout.js';

/**
 * Which file events are worth a round. Pure: paths are vault-relative with `/` separators.
 * A card arriving in (or edited in) `pending/` may be dispatchable; a child landing in `done/`
 * may wake its director; a new or edited template may be due; any profile change can change
 * matching. Everything else (claims, archive, the board's dotfiles) waits for the heartbeat.
 */

/** The folders of KANBAN/ that are watched; the rest (in-progress, archive) never trigger a round. */
export const WATCHED_KANBAN = new Set(['pending', 'done', 'scheduled']);

/** True for a path chokidar should not even look at. */
export function isIgnoredPath(relative: string): boolean {
  if (relative === '' || relative === '.') return false;
  const parts = relative.split('/');
  if (parts[0] === '..') return true;
  // Dotfiles: the board's temp files, run records (KANBAN/.runs/), the lock (KANBAN/.board.lock).
  if (parts.some((p) => p.startsWith('.'))) return true;
  // The vault root is watched only for its board and its agents, never the notes around them.
  if (parts[0] !== 'KANBAN' && parts[0] !== 'AGENTS') return true;
  if (parts[0] === 'KANBAN' && parts.length >= 2 && !WATCHED_KANBAN.has(parts[1]!)) return true;
  if (parts[0] === 'AGENTS' && parts.length >= 3 && parts[2] !== 'PROFILE.md') return true;
  return false;
}

export type WatchEvent = 'add' | 'addDir' | 'change' | 'unlink' | 'unlinkDir';

export function isRelevantEvent(event: WatchEvent, relative: string): boolean {
  if (isIgnoredPath(relative)) return false;
  const parts = relative.split('/');
  // The board or the agents folder appearing or vanishing: a round finds out what it means.
  if (parts.length === 1) return event === 'addDir' || event === 'unlinkDir';
  if (parts[0] === 'KANBAN' && parts.length === 3 && isCardFileName(parts[2]!)) {
    if (parts[1] === 'pending' || parts[1] === 'scheduled') return event === 'add' || event === 'change';
    if (parts[1] === 'done') return event === 'add';
    return false;
  }
  if (parts[0] === 'AGENTS') {
    if (parts.length === 3 && parts[2] === 'PROFILE.md') return event === 'add' || event === 'change' || event === 'unlink';
    if (parts.length === 2) return event === 'unlinkDir';
  }
  return false;
}
