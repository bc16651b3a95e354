import fs from 'node:fs/promises';
import path from 'node:path';
import { parseText } from '../vault/read-card.js';
import { cardSchema, type Card } from '../schema/card.js';
import { formatProblem } from '../errors.js';
import { cardNameProblem, isCardFileName, type VaultLayout } from '../vault/layout.js';
import { refuse, usage } from './context.js';

export type FoundState = 'pending' | 'in-progress' | 'done' | 'archive';

export interface FoundCard {
  /** The card's file name. */
  readonly name: string;
  readonly state: FoundState;
  /** `pending`, `in-progress`, `done` or `archive/YYYY-MM`. */
  readonly folder: string;
  /** Absolute path. */
  readonly file: string;
  readonly text: string;
  readonly card: Card;
}

/** Every folder a card can live in, in life-cycle order. */
export async function stateFolders(layout: VaultLayout): Promise<{ state: FoundState; folder: string; dir: string }[]> {
  const folders: { state: FoundState; folder: string; dir: string }[] = [
    { state: 'pending', folder: 'pending', dir: layout.pending },
    { state: 'in-progress', folder: 'in-progress', dir: layout.inProgress },
    { state: 'done', folder: 'done', dir: layout.done },
  ];
  let months: string[] = [];
  try {
    months = (await fs.readdir(layout.archive, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const m of months) folders.push({ state: 'archive', folder: `archive/${m}`, dir: path.join(layout.archive, m) });
  return folders;
}

/**
 * The card's file name from what the caller wrote: a bare file name, or a path (absolute, from
 * the working directory, or from the vault). A path must point into one of this board's state
 * folders; the card itself may have moved on since (a worker passes the `in-progress/` path it was
 * given), so only the name is kept and the card is looked up wherever it is now.
 */
export async function cardNameOf(layout: VaultLayout, ref: string, cwd: string): Promise<string> {
  const trimmed = ref.trim();
  if (trimmed === '') usage('CARD: empty; give a card file name or path');
  if (!trimmed.includes('/') && !trimmed.includes(path.sep)) return checkName(trimmed);
  const candidates = path.isAbsolute(trimmed) ? [trimmed] : [path.resolve(cwd, trimmed), layout.absolute(trimmed)];
  const folders = (await stateFolders(layout)).map((f) => f.dir);
  const anyStateDir = (dir: string) => folders.includes(dir) || path.dirname(dir) === layout.archive;
  for (const candidate of candidates) {
    if (anyStateDir(path.dirname(path.resolve(candidate)))) return checkName(path.basename(candidate));
  }
  return refuse(`${ref}: not a card of the board at ${layout.kanban} (cards live in KANBAN/pending, in-progress, done or archive/YYYY-MM)`);
}

function checkName(name: string): string {
  if (!isCardFileName(name)) usage(`CARD: "${name}" is not a card file name (a visible .md file)`);
  const problem = cardNameProblem(name);
  if (problem) usage(`CARD: ${problem}`);
  return name;
}

/** Where a card is now; refuses when it is nowhere, in two folders, or unreadable. */
export async function findCard(layout: VaultLayout, ref: string, cwd: string): Promise<FoundCard> {
  const name = await cardNameOf(layout, ref, cwd);
  const hits: { state: FoundState; folder: string; file: string; text: string }[] = [];
  for (const f of await stateFolders(layout)) {
    const file = path.join(f.dir, name);
    try {
      const stat = await fs.lstat(file);
      if (!stat.isFile()) refuse(`${f.folder}/${name} is not a regular file: the board does not follow links`);
      hits.push({ state: f.state, folder: f.folder, file, text: await fs.readFile(file, 'utf8') });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (hits.length === 0) refuse(`no card named ${name} in pending/, in-progress/, done/ or archive/`);
  if (hits.length > 1) refuse(`${name} is in ${hits.map((h) => `${h.folder}/`).join(' and ')} at once: a human must decide which one is the card`);
  const hit = hits[0]!;
  const parsed = parseText(hit.text, `${hit.folder}/${name}`, cardSchema);
  if (!parsed.ok) refuse(`${hit.folder}/${name} is unreadable, so it is not touched: ${parsed.problems.map(formatProblem).join('; ')}`);
  return { name, state: hit.state, folder: hit.folder, file: hit.file, text: hit.text, card: parsed.value };
}

/** Refuse unless the card is in one of the allowed states, naming the verb and where it is. */
export function requireState(found: FoundCard, allowed: readonly FoundState[], verb: string): void {
  if (allowed.includes(found.state)) return;
  refuse(`cannot ${verb} ${found.name}: it is in ${found.folder}/, and ${verb} needs it in ${allowed.map((s) => `${s}/`).join(' or ')}`);
}
