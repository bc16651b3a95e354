import fs from 'node:fs/promises';
import path from 'node:path';
import { normalize } from '../core/normalize.js';
import { localDate } from '../core/time.js';
import { renderEntry } from '../format/frontmatter.js';
import { renderRecordEntry } from '../format/record.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { cardSchema } from '../schema/card.js';
import { createFileExclusive } from '../vault/atomic-write.js';
import { lockOrRefuse } from './transaction.js';
import { isCardFileName } from '../vault/layout.js';
import { refuse, usage, type CardContext, type CardResult } from './context.js';
import { checkFence } from './fence.js';
import { findCard, stateFolders } from './find-card.js';
import { requireDirector } from './profile-of.js';
import { onTheBoard, toVaultPath } from './vault-path.js';
import { awaitedCard } from '../core/flows.js';

export interface NewCardArgs {
  readonly function: string;
  readonly request: string;
  /** `name=path` pairs; a name given twice becomes a list. */
  readonly inputs?: readonly string[];
  readonly priority?: string;
  readonly recipient?: string;
  readonly pushReason?: string;
  readonly origin?: string;
  readonly destination?: string;
  readonly flow?: string;
  /** The director's card (file name or path). */
  readonly director?: string;
}

export const SLUG_MAX = 50;

/** `YYYY-MM-DD-<slug>`: the request normalized, words joined by `-`, cut on a word at ~50 chars. */
export function slugOf(request: string): string {
  let slug = normalize(request).replace(/ /g, '-');
  if (slug.length > SLUG_MAX) {
    const cut = slug.slice(0, SLUG_MAX + 1);
    const lastDash = cut.lastIndexOf('-');
    slug = lastDash > 0 ? cut.slice(0, lastDash) : slug.slice(0, SLUG_MAX);
  }
  return slug === '' ? 'card' : slug;
}

/**
 * `board card new`: a valid card in `pending/` under a fresh name. Only the standard's card fields
 * are written. From inside a worker (BOARD_CARD set) only a director may create cards, the origin
 * is the director's profile name (never "human"), its claim must still be held, and it may have
 * only one open child at a time (the golden rule).
 */
export async function newCard(ctx: CardContext, args: NewCardArgs): Promise<CardResult> {
  const fn = args.function.trim();
  const request = args.request.trim();
  if (fn === '') usage('--function: empty');
  if (request === '') usage('--request: empty');
  // Normalized as the census reads `priority` in a file (CONTRACT "Matching"): URGENT is urgent.
  const priority = args.priority !== undefined ? normalize(args.priority) : undefined;
  if (priority !== undefined && priority !== 'urgent' && priority !== 'normal') usage(`--priority: "${args.priority}" is not normal or urgent`);
  if ((args.flow === undefined) !== (args.director === undefined)) usage('--flow and --director go together: a child card names its flow and its director');
  if (args.pushReason !== undefined && args.recipient === undefined) usage('--push-reason needs --recipient');

  const inputs = parseInputs(ctx, args.inputs ?? []);
  const destination = args.destination !== undefined ? toVaultPath(ctx.layout, args.destination, '--destination') : undefined;
  // What the census would block (core/census.ts), refused before the card is written.
  if (destination !== undefined && (await onTheBoard(ctx.layout, destination))) refuse(`--destination ${destination}: an output never lives on the board itself (KANBAN/)`);
  for (const [slot, value] of Object.entries(inputs)) {
    for (const p of Array.isArray(value) ? value : [value]) {
      if (slot === 'dependent_task' && awaitedCard(p) !== undefined) continue;
      if (await onTheBoard(ctx.layout, p)) refuse(`--input ${slot}=${p}: an input never lies on the board itself (KANBAN/); only dependent_task names a card, as KANBAN/done/<card>`);
    }
  }

  // Who is creating it: a human at a terminal, or the worker of a card (a director).
  let origin = args.origin?.trim() || 'human';
  const workerCard = ctx.env.BOARD_CARD;
  if (workerCard) {
    const own = await findCard(ctx.layout, workerCard, ctx.cwd);
    checkFence(ctx, own, 'create a card from');
    const director = await requireDirector(ctx.layout, own.card.agent, `cannot create a card from ${own.name}`);
    if (args.origin !== undefined && args.origin.trim() !== director.name) {
      refuse(`--origin ${args.origin}: a card created by the worker of ${own.name} has origin ${director.name}, its profile`);
    }
    origin = director.name;
  }

  let directorName: string | undefined;
  if (args.director !== undefined) {
    const dir = await findCard(ctx.layout, args.director, ctx.cwd);
    if (dir.state === 'done' || dir.state === 'archive') refuse(`--director ${dir.name}: that card is closed (in ${dir.folder}/)`);
    directorName = dir.name;
    const open = await openChildren(ctx, directorName);
    if (open.length > 0) {
      refuse(`--director ${directorName}: its child ${open.join(', ')} is still open; a director creates ONE child at a time and the next one when it closes`);
    }
  }

  const created = ctx.now.toISOString();
  const fields: [string, unknown][] = [
    ['function', fn],
    ['request', request],
    ['created', created],
    ['origin', origin],
  ];
  if (priority !== undefined) fields.push(['priority', priority]);
  if (args.recipient !== undefined) fields.push(['recipient', args.recipient.trim()]);
  if (args.pushReason !== undefined) fields.push(['push_reason', args.pushReason.trim()]);
  if (args.flow !== undefined) fields.push(['flow', args.flow.trim()]);
  if (directorName !== undefined) fields.push(['director', directorName]);
  if (Object.keys(inputs).length > 0) fields.push(['inputs', inputs]);
  if (destination !== undefined) fields.push(['destination', destination]);
  fields.push(['paths', []], ['attempts', 0]);

  const what = [
    `card written: "${request}"`,
    ...(directorName ? [`child of ${directorName} in flow ${args.flow}.`] : []),
    ...Object.entries(inputs).map(([slot, p]) => `input ${slot}: ${Array.isArray(p) ? p.join(', ') : p}.`),
  ];
  const text = `---\n${fields.map(([k, v]) => renderEntry(k, v, '\n')).join('')}---\n\n## Record\n\n${renderRecordEntry(ctx.now, origin, what)}`;
  const parsed = cardSchema.safeParse(parseFrontMatter(text).data);
  if (!parsed.success) refuse(`the card would not be valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);

  await fs.mkdir(ctx.layout.pending, { recursive: true });
  const name = await createUnique(ctx, `${localDate(ctx.now)}-${slugOf(request)}`, text);
  const file = path.join(ctx.layout.pending, name);
  return { verb: 'new', card: name, state: 'pending', file, message: `wrote pending/${name}` };
}

function parseInputs(ctx: CardContext, pairs: readonly string[]): Record<string, string | string[]> {
  const inputs: Record<string, string | string[]> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) usage(`--input "${pair}": write it as name=path`);
    const slot = pair.slice(0, eq).trim();
    if (!/^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(slot)) usage(`--input "${pair}": the slot name "${slot}" must be letters, digits, - or _`);
    const p = toVaultPath(ctx.layout, pair.slice(eq + 1), `--input ${slot}`);
    const prev = inputs[slot];
    inputs[slot] = prev === undefined ? p : [...(Array.isArray(prev) ? prev : [prev]), p];
  }
  return inputs;
}

/** Children of a director that have not closed yet (in pending/ or in-progress/). */
async function openChildren(ctx: CardContext, directorName: string): Promise<string[]> {
  const open: string[] = [];
  for (const dir of [ctx.layout.pending, ctx.layout.inProgress]) {
    let names: string[] = [];
    try {
      names = (await fs.readdir(dir)).filter(isCardFileName);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const n of names) {
      try {
        const data = parseFrontMatter(await fs.readFile(path.join(dir, n), 'utf8')).data;
        if (data.director === directorName && n !== directorName) open.push(n);
      } catch {
        // An unreadable card is the tick's to declare; it cannot be anyone's open child here.
      }
    }
  }
  return open.sort();
}

/** Create `<stem>.md`, else `<stem>-2.md`, `-3` …: unique across every state folder, created exclusively. */
async function createUnique(ctx: CardContext, stem: string, text: string): Promise<string> {
  const folders = await stateFolders(ctx.layout);
  for (let n = 1; n < 1000; n += 1) {
    const name = n === 1 ? `${stem}.md` : `${stem}-${n}.md`;
    // Under the name's transition lock: no card of that name can be moving into pending/ meanwhile.
    const lock = await lockOrRefuse(ctx, name, 'new');
    try {
      const taken = await Promise.all(folders.map((f) => fs.access(path.join(f.dir, name)).then(() => true, () => false)));
      if (taken.some(Boolean)) continue;
      await lock.assertHeld();
      await createFileExclusive(path.join(ctx.layout.pending, name), text);
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    } finally {
      await lock.release();
    }
  }
  return refuse(`no free file name for ${stem}.md after 999 tries`);
}
