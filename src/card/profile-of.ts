import path from 'node:path';
import { formatProblem } from '../errors.js';
import { isDirector, profileSchema, type Profile } from '../schema/profile.js';
import type { VaultLayout } from '../vault/layout.js';
import { readParsed } from '../vault/read-card.js';
import { refuse } from './context.js';

/** The profile named by a card's `agent`, read fresh from `AGENTS/<name>/PROFILE.md`. */
export async function profileOf(layout: VaultLayout, name: string | null | undefined, why: string): Promise<Profile> {
  if (!name) return refuse(`${why}: the card names no \`agent\`, so its profile cannot be known`);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) return refuse(`${why}: \`agent\` "${name}" is not a profile name`);
  const file = path.join(layout.agents, name, 'PROFILE.md');
  const parsed = await readParsed(file, layout.relative(file), profileSchema);
  if (!parsed.ok) return refuse(`${why}: profile ${name} is unreadable: ${parsed.problems.map(formatProblem).join('; ')}`);
  return parsed.value;
}

export async function requireDirector(layout: VaultLayout, name: string | null | undefined, why: string): Promise<Profile> {
  const profile = await profileOf(layout, name, why);
  if (!isDirector(profile)) refuse(`${why}: ${profile.name} is a worker (it declares skills), and only a director (profiles + failure_policy) creates cards and yields`);
  return profile;
}
