import fs from 'node:fs/promises';
import path from 'node:path';
import { loadBoard } from '../config/load-config.js';
import { normalize } from '../core/normalize.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import { isDirector, profileSchema } from '../schema/profile.js';
import type { VaultLayout } from '../vault/layout.js';
import type { CommandEnv, GlobalOptions } from './common.js';

/**
 * After `board unblock`: a card whose `origin` is not trusted is blocked again as foreign by the
 * next round. Say so, with what would change that, instead of letting the unblock look like it
 * worked. Undefined when the origin is trusted, or when no config says what is trusted.
 */
export async function foreignOriginWarning(file: string, layout: VaultLayout, options: GlobalOptions, env: CommandEnv): Promise<string | undefined> {
  let origin: unknown;
  try {
    origin = parseFrontMatter(await fs.readFile(file, 'utf8')).data.origin;
  } catch {
    return undefined;
  }
  if (typeof origin !== 'string') return undefined;
  let trusted: readonly string[];
  try {
    trusted = (await loadBoard({ config: options.config, vault: options.vault, cwd: env.cwd, env: env.env })).config.trusted_origins;
  } catch {
    return undefined;
  }
  const wanted = normalize(origin);
  if (trusted.some((t) => normalize(t) === wanted)) return undefined;
  // Every director profile's name is trusted too.
  try {
    for (const dir of await fs.readdir(layout.agents)) {
      const parsed = profileSchema.safeParse(parseFrontMatter(await fs.readFile(path.join(layout.agents, dir, 'PROFILE.md'), 'utf8').catch(() => '---\n---\n')).data);
      if (parsed.success && isDirector(parsed.data) && normalize(parsed.data.name) === wanted) return undefined;
    }
  } catch {
    // No AGENTS/ folder: no directors.
  }
  return `warning: its origin "${origin}" is not in trusted_origins, so the next round blocks it again as foreign: add "${origin}" to trusted_origins in the config, or give the card a trusted origin`;
}
