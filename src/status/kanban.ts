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
  /** How many leading characters are never cut (a template's due time). */
  readonly keep?: number;
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
  const scheduled = s.templates.map((t) => {
    const due = `${t.problem ? 'unreadable' : t.paused ? 'paused' : t.next!.slice(5)} `;
    return { text: `${due}${t.template.replace(/\.md$/, '')}`, mark: t.paused || t.problem ? ' ' : '⏱', keep: due.length };
  });
  return { scheduled, pending, inProgress, done };
}

function rank(mark: string): number {
  return ['!', '→', '…', '×', '⊘'].indexOf(mark);
}

function fit(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, Math.max(0, width - 1))}…`;
}

type Cut = (text: string, width: number) => string;
/** The start and the end, an ellipsis between: dates lead card names, and a `-2` ends them. */
const middle: Cut = (text, width) => {
  const head = Math.floor((width - 1) / 3);
  return `${text.slice(0, head)}…${text.slice(text.length - (width - 1 - head))}`;
};
const tail: Cut = (text, width) => `…${text.slice(text.length - (width - 1))}`;
const head: Cut = (text, width) => `${text.slice(0, width - 1)}…`;

/**
 * Names cut to `width` so that no two of a column look the same (issue 19: two cards shown as one
 * name): cut in the middle, else keep the end, else the start; the first way that tells every
 * name apart wins.
 */
export function fitNames(texts: readonly string[], width: number, keep: readonly number[] = []): string[] {
  if (width <= 1) return texts.map((t) => fit(t, width));
  const cut = (how: Cut) =>
    texts.map((t, i) => {
      if (t.length <= width) return t.padEnd(width);
      // A kept prefix stays whole while the column holds it and a few characters of the rest;
      // a narrower column cuts the end, never the prefix's start.
      const k = keep[i] ?? 0;
      return k + 4 > width ? head(t, width) : `${t.slice(0, k)}${how(t.slice(k), width - k)}`;
    });
  let first: string[] | undefined;
  for (const how of [middle, tail, head]) {
    const shown = cut(how);
    first ??= shown;
    if (new Set(shown).size === new Set(texts).size) return shown;
  }
  return first!;
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
    const rows = cells.slice(0, ROWS);
    const texts = fitNames(rows.map((cell) => cell.text), col - 2, rows.map((cell) => cell.keep ?? 0));
    const shown = rows.map((cell, i) => `${cell.mark} ${texts[i]}`);
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
