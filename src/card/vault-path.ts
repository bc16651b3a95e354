import fs from 'node:fs/promises';
import path from 'node:path';
import { isSafeVaultPath } from '../core/census.js';
import type { VaultLayout } from '../vault/layout.js';
import { refuse } from './context.js';

/**
 * A path as a card holds it: relative to the vault, with `/` separators (CONTRACT "Profiles and
 * cards"). The caller may give it vault-relative or absolute; a path that leaves the vault is
 * refused, never rewritten into something else.
 */
export function toVaultPath(layout: VaultLayout, given: string, what: string): string {
  const raw = given.trim();
  if (raw === '') refuse(`${what}: empty path`);
  let rel: string;
  if (path.isAbsolute(raw)) {
    rel = path.relative(layout.root, path.resolve(raw)).split(path.sep).join('/');
  } else {
    rel = raw.split(path.sep).join('/');
  }
  if (!isSafeVaultPath(rel)) refuse(`${what}: "${given}" lies outside the vault ${layout.root}`);
  // A `..` inside the vault is refused too: lexically `notes/a.md/..` is `notes`, but to the
  // filesystem it is no path at all (a.md is no folder), and through a linked folder it leads
  // elsewhere again. What is checked and stored must be the one path the caller meant.
  if (raw.split(/[\\/]/).includes('..')) refuse(`${what}: "${given}" holds "..": give the path inside the vault without it`);
  const normalized = path.posix.normalize(rel).replace(/\/$/, '');
  return normalized;
}

/** The same, and the file must exist now, inside the vault even after following links. */
export async function existingVaultPath(layout: VaultLayout, given: string, what: string): Promise<string> {
  const rel = toVaultPath(layout, given, what);
  let real: string;
  try {
    real = await fs.realpath(layout.absolute(rel));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(`${what}: ${rel} does not exist in the vault${code && code !== 'ENOENT' ? ` (${code})` : ''}`);
  }
  const root = await fs.realpath(layout.root);
  if (real !== root && !real.startsWith(root + path.sep)) refuse(`${what}: ${rel} leads outside the vault (to ${real})`);
  return rel;
}

/**
 * Whether a vault path lies on the board itself (`KANBAN/`) once links are resolved: by its
 * letters, or because the nearest part of it that exists resolves into the board's folder (a
 * `kb` link to `KANBAN` makes `kb/done` the board too).
 */
export async function onTheBoard(layout: VaultLayout, rel: string): Promise<boolean> {
  if (/^kanban(\/|$)/i.test(rel)) return true;
  const board = await fs.realpath(layout.kanban).catch(() => layout.kanban);
  for (let at = layout.absolute(rel); at !== path.dirname(at); at = path.dirname(at)) {
    let real: string;
    try {
      real = await fs.realpath(at);
    } catch {
      continue; // not there: its nearest existing ancestor decides
    }
    return real === board || real.startsWith(board + path.sep);
  }
  return false;
}
