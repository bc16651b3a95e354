import fs from 'node:fs/promises';
import path from 'node:path';
import { normalize } from '../core/normalize.js';
import { UsageError } from '../errors.js';
import { profileText, skillText } from '../init/templates.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';

export interface ProfileNewOptions extends GlobalOptions {
  readonly function?: string;
  readonly handles?: string[];
  readonly refuses?: string[];
  readonly description?: string;
  /** A director: chains `profiles` with a `failure_policy`, mounts no skills. */
  readonly director?: boolean;
  /** Comma-separated profile names (with --director). */
  readonly profiles?: string;
  readonly failurePolicy?: string;
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * `board profile new NAME`: `AGENTS/NAME/PROFILE.md` with every field shown and commented, and
 * its first skill's folder. Refuses a name that is not kebab-case or a profile already there.
 */
export async function profileNewCommand(name: string, options: ProfileNewOptions, env: CommandEnv): Promise<number> {
  if (!NAME.test(name)) throw new UsageError(`profile name "${name}": a trade name in kebab-case, like "transcriber" (lower-case letters, digits, -)`);
  const director = directorOf(options);
  const { layout } = await prepare(options, env);
  const fn = options.function?.trim() || 'write';
  const handles = (options.handles ?? []).map((h) => h.trim()).filter((h) => h !== '');
  const kebab = (text: string) => normalize(text).replace(/ /g, '-');
  const skill = `${kebab(fn)}-${kebab(handles[0] ?? name)}`;
  const dir = path.join(layout.agents, name);
  const file = path.join(dir, 'PROFILE.md');
  if (await fs.lstat(dir).then(() => true, () => false)) {
    throw new UsageError(`${layout.relative(dir)} already exists; nothing was written (pick another name, or edit its PROFILE.md)`);
  }
  await fs.mkdir(director ? dir : path.join(dir, 'skills', skill), { recursive: true });
  const text = profileText({
    ...(director ? { director } : {}),
    name,
    fn,
    handles: handles.length > 0 ? handles : [name.replace(/-/g, ' ')],
    refuses: (options.refuses ?? []).map((r) => r.trim()).filter((r) => r !== ''),
    skill,
    description: options.description?.trim() || 'What it does, in two or three plain sentences, and what it does not do.',
  });
  await fs.writeFile(file, text, { flag: 'wx' });
  if (!director) await fs.writeFile(path.join(dir, 'skills', skill, 'SKILL.md'), skillText(skill), { flag: 'wx' });
  if (options.json) env.stdout(`${JSON.stringify({ profile: name, file, ...(director ? { director: true, profiles: director.profiles } : { skill }) }, null, 2)}\n`);
  else env.stdout(`${file}\n  edit its description and handles; \`board lint\` checks it, \`board dry-run\` shows what it would take\n`);
  return 0;
}

/** `--director --profiles a,b [--failure-policy p]`, checked before anything is read or written. */
function directorOf(options: ProfileNewOptions): { profiles: string[]; failurePolicy: string } | undefined {
  if (!options.director) {
    if (options.profiles !== undefined || options.failurePolicy !== undefined) throw new UsageError('--profiles and --failure-policy make a director: add --director');
    return undefined;
  }
  const profiles = (options.profiles ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (profiles.length === 0) throw new UsageError('--director needs --profiles a,b: the profiles it chains, in order');
  for (const p of profiles) if (!NAME.test(p)) throw new UsageError(`--profiles: "${p}" is not a profile name (kebab-case, like "transcriber")`);
  const failurePolicy = options.failurePolicy?.trim() || 'block';
  if (!/^[a-z][a-z0-9-]*$/.test(failurePolicy)) throw new UsageError(`--failure-policy: "${failurePolicy}" is not a single word like block`);
  return { profiles, failurePolicy };
}
