import { describe, expect, it } from 'vitest';
import { isIgnoredPath, isRelevantEvent, type WatchEvent } from '../../src/watch/relevance.js';

describe('which vault changes are worth a round', () => {
  it.each<[WatchEvent, string, boolean]>([
    ['add', 'KANBAN/pending/2026-12-01-x.md', true],
    ['change', 'KANBAN/pending/2026-12-01-x.md', true],
    ['unlink', 'KANBAN/pending/2026-12-01-x.md', false],
    ['add', 'KANBAN/done/child.md', true],
    ['change', 'KANBAN/done/child.md', false],
    ['add', 'KANBAN/scheduled/daily.md', true],
    ['add', 'KANBAN/in-progress/x.md', false],
    ['add', 'KANBAN/archive/2026-11/x.md', false],
    ['add', 'KANBAN/pending/.x.md.123.ab.tmp', false],
    ['add', 'KANBAN/pending/notes.txt', false],
    ['add', 'KANBAN/.runs/r.json', false],
    ['addDir', 'KANBAN/.board.lock', false],
    ['add', 'AGENTS/writer/PROFILE.md', true],
    ['change', 'AGENTS/writer/PROFILE.md', true],
    ['unlink', 'AGENTS/writer/PROFILE.md', true],
    ['unlinkDir', 'AGENTS/writer', true],
    ['add', 'AGENTS/writer/skills/write/SKILL.md', false],
    ['add', 'notes/inbox.md', false],
    ['unlinkDir', 'KANBAN', true],
    ['addDir', 'AGENTS', true],
    ['addDir', 'notes', false],
  ])('%s %s → %s', (event, path, relevant) => {
    expect(isRelevantEvent(event, path)).toBe(relevant);
  });

  it('ignores dotfiles and the unwatched KANBAN folders outright', () => {
    expect(isIgnoredPath('')).toBe(false);
    expect(isIgnoredPath('KANBAN')).toBe(false);
    expect(isIgnoredPath('KANBAN/pending')).toBe(false);
    expect(isIgnoredPath('KANBAN/.runs')).toBe(true);
    expect(isIgnoredPath('KANBAN/.board.lock')).toBe(true);
    expect(isIgnoredPath('KANBAN/in-progress')).toBe(true);
    expect(isIgnoredPath('KANBAN/archive')).toBe(true);
    expect(isIgnoredPath('AGENTS/writer/skills')).toBe(true);
    expect(isIgnoredPath('AGENTS/.git')).toBe(true);
    expect(isIgnoredPath('notes')).toBe(true);
    expect(isIgnoredPath('AGENTS')).toBe(false);
  });
});
