import fs from 'node:fs/promises';
import path from 'node:path';
import { cardSchema } from '../schema/card.js';
import { isCardFileName, type VaultLayout } from '../vault/layout.js';
import { mapLimit, readParsed } from '../vault/read-card.js';
import type { BoardStatus } from './board-status.js';

/** One card as a kanban cell: its name and a one-character mark. */
export interface Cell {
  readonly text: string;
  /** `⏱` a template's next due time, `!` urgent, `→` ready, `…` waiting, `⊘` blocked, `×` unreadable, `▶` worker alive, ` ` otherwise. */
  readonly mark: string;
}

export interface Columns {
  readonly scheduled: readonly Cell[];
  readonly pending: readonly Cell[];
  readonly inProgress: readonly Cell[];
  readonly done: readonly Cell[];
}

/** How many cards a column shows before "+N more". */
export const ROWS = 15;

async function names(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).filter((e) => !e.isDirectory() && isCardFileName(e.name)).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

/** The columns' cells from the status and the folders (pending cards are read for `priority`). */
export async function kanbanColumns(layout: VaultLayout, s: BoardStatus): Promise<Columns> {
  const ready = new Set(s.ready.map((r) => r.card));
  const blocked = new Set(s.blocked.filter((b) => b.state === 'pending').map((b) => b.card));
  const unreadable = new Set(s.unreadable.map((u) => u.file));
  const pendingNames = await names(layout.pending);
  const urgent = new Set<string>();
  await mapLimit(pendingNames, 64, async (n) => {
    const parsed = await readParsed(path.join(layout.pending, n), n, cardSchema);
    if (parsed.ok && parsed.value.priority === 'urgent') urgent.add(n);
  });
  const pending = pendingNames
    .map((n) => ({ text: n, mark: blocked.has(n) ? '⊘' : unreadable.has(n) ? '×' : urgent.has(n) ? '!' : ready.has(n) ? '→' : '…' }))
    // Urgent first, then ready, then the rest, each by name: the order a person acts in.
    .sort((a, b) => rank(a.mark) - rank(b.mark) || (a.text < b.text ? -1 : 1));
  const inProgress = s.inProgress.map((p) => ({ text: `${p.card}${p.agent ? ` (${p.agent})` : ''}`, mark: p.worker === 'alive' ? '▶' : ' ' }));
  // Newest first: card names start with their date.
  const done = (await names(layout.done)).reverse().map((n) => ({ text: n, mark: ' ' }));
  // The due time first (MM-DD HH:MM, local): a narrow column cuts the name, never the time.
  const scheduled = s.templates.map((t) => ({ text: `${t.problem ? 'unreadable' : t.paused ? 'paused' : t.next!.slice(5)} ${t.template.replace(/\.md$/, '')}`, mark: t.paused || t.problem ? ' ' : '⏱' }));
  return { scheduled, pending, inProgress, done };
}

function rank(mark: string): number {
  return ['!', '→', '…', '×', '⊘'].indexOf(mark);
}

function fit(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** The board as four columns that fit `width` characters (a terminal's), each cut at ROWS cards. */
export function kanbanText(c: Columns, width: number): string {
  const columns: [string, readonly Cell[]][] = [
    ['scheduled', c.scheduled],
    ['pending', c.pending],
    ['in-progress', c.inProgress],
    ['done', c.done],
  ];
  const gap = ' │ ';
  const col = Math.max(12, Math.floor((Math.max(width, 60) - gap.length * (columns.length - 1)) / columns.length));
  const cellsOf = (cells: readonly Cell[]) => {
    const shown = cells.slice(0, ROWS).map((cell) => fit(`${cell.mark} ${cell.text}`, col));
    if (cells.length > ROWS) shown.push(fit(`  +${cells.length - ROWS} more`, col));
    return shown;
  };
  const bodies = columns.map(([, cells]) => cellsOf(cells));
  const height = Math.max(1, ...bodies.map((b) => b.length));
  const lines = [
    columns.map(([title, cells]) => fit(`${title} (${cells.length})`, col)).join(gap),
    columns.map(() => '─'.repeat(col)).join('─┼─'),
  ];
  for (let i = 0; i < height; i += 1) lines.push(bodies.map((b) => b[i] ?? ' '.repeat(col)).join(gap));
  // The legend, wrapped to the width like the rest.
  lines.push('');
  let legend = '';
  for (const item of ['⏱ next due (local)', '! urgent', '→ ready', '… waiting', '⊘ blocked', '× unreadable', '▶ worker alive']) {
    if (legend !== '' && legend.length + 2 + item.length > Math.max(width, 20)) {
      lines.push(legend);
      legend = '';
    }
    legend = legend === '' ? item : `${legend}  ${item}`;
  }
  lines.push(legend);
  return `${lines.map((l) => l.trimEnd()).join('\n')}\n`;
}
