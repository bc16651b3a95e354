import fs from 'node:fs/promises';
import path from 'node:path';
import { parseFrontMatter } from '../format/frontmatter.js';
import { isCardFileName } from '../vault/layout.js';
import { mapLimit } from '../vault/read-card.js';
import type { CardContext } from './context.js';
import { cardNameOf, stateFolders } from './find-card.js';

export interface Child {
  readonly card: string;
  /** `pending`, `in-progress`, `done` or `archive/YYYY-MM`. */
  readonly folder: string;
  readonly flow?: string;
  readonly request?: string;
  readonly blocked?: string;
  /** True for the one this director's `dependent_task` names. */
  readonly awaited?: true;
}

/**
 * `board card children CARD`: the cards whose `director` names CARD (how a child points to its
 * director, `card new --director`), wherever they are, oldest name first. Reads only. The
 * director itself need not exist any more: its children are still worth finding.
 */
export async function listChildren(ctx: CardContext, ref: string): Promise<{ director: string; awaits?: string; children: Child[] }> {
  const director = await cardNameOf(ctx.layout, ref, ctx.cwd);
  let awaits: string | undefined;
  const children: Child[] = [];
  for (const f of await stateFolders(ctx.layout)) {
    let names: string[] = [];
    try {
      names = (await fs.readdir(f.dir)).filter(isCardFileName);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await mapLimit(names, 64, async (name) => {
      let data: Record<string, unknown>;
      try {
        // Never through a link: lstat first, as findCard does.
        if (!(await fs.lstat(path.join(f.dir, name))).isFile()) return;
        data = parseFrontMatter(await fs.readFile(path.join(f.dir, name), 'utf8')).data;
      } catch {
        return; // unreadable or gone: the census declares it, nobody's child here
      }
      if (name === director) {
        const value = (data.inputs as Record<string, unknown> | undefined)?.dependent_task;
        if (typeof value === 'string') awaits = value;
        return;
      }
      if (data.director !== director) return;
      children.push({
        card: name,
        folder: f.folder,
        ...(typeof data.flow === 'string' ? { flow: data.flow } : {}),
        ...(typeof data.request === 'string' ? { request: data.request } : {}),
        ...(typeof data.blocked === 'string' && data.blocked.trim() !== '' ? { blocked: data.blocked } : {}),
      });
    });
  }
  children.sort((a, b) => (a.card < b.card ? -1 : a.card > b.card ? 1 : 0));
  const marked = children.map((c) => (awaits !== undefined && awaits === `KANBAN/done/${c.card}` ? { ...c, awaited: true as const } : c));
  return { director, ...(awaits !== undefined ? { awaits } : {}), children: marked };
}
