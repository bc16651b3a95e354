import fs from 'node:fs/promises';
import path from 'node:path';
import type { ComposedCommand } from '../core/compose.js';
import { parseFrontMatter } from '../format/frontmatter.js';
import type { Harness } from '../schema/harness.js';
import { createManifest, manifestFile, type Component, type RunManifest } from './manifest.js';
import { ObjectStore } from './store.js';

/** The harness definition as stored: canonical JSON (sorted keys, two-space indent), so diffs are by line. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

/** Values shorter than this are not scrubbed from text (they would mangle it); they never reach argv anyway. */
const MIN_SCRUB = 4;

/** Replace every private value in a text by `<private:KEY>`. */
export function scrubText(text: string, privateEnv: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [key, value] of [...privateEnv].sort((a, b) => b[1].length - a[1].length)) {
    if (value.length >= MIN_SCRUB) out = out.split(value).join(`<private:${key}>`);
  }
  return out;
}

export function scrubEnv(env: Readonly<Record<string, string>>, privateNames: readonly string[], privateEnv: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = privateNames.includes(k) || privateEnv.has(k) ? `<private:${k}>` : scrubText(v, privateEnv);
  return out;
}

export interface RecordRunInput {
  readonly logsDir: string;
  readonly runId: string;
  /** The card's file name. */
  readonly card: string;
  /** The card's text as stamped at claim. */
  readonly cardText: string;
  readonly profile: string;
  /** Absolute path of the PROFILE.md. */
  readonly profileFile: string;
  readonly vault: string;
  readonly harnessName: string;
  readonly harness: Harness;
  readonly model: string;
  readonly claim: string;
  readonly command: ComposedCommand;
  /** The paths the template was rendered with. */
  readonly paths: RunManifest['paths'];
  readonly log: string;
  readonly cause?: string | undefined;
  readonly privateEnv: ReadonlyMap<string, string>;
  readonly replayOf?: string;
  readonly substitutions?: RunManifest['substitutions'];
}

export interface RecordedRun {
  readonly manifest: RunManifest;
  readonly file: string;
}

const rel = (vault: string, file: string) => path.relative(vault, file).split(path.sep).join('/');

/**
 * Store every component of a dispatch in the object store and write its manifest (exclusively:
 * a run id is recorded once). Called after the claim is stamped and before the worker is spawned.
 */
export async function recordRun(input: RecordRunInput): Promise<RecordedRun> {
  const store = new ObjectStore(input.logsDir);
  const components: Component[] = [];
  const put = async (name: string, content: string, source: string) => {
    const hash = await store.put(content);
    components.push({ name, hash, bytes: Buffer.byteLength(content), source });
  };

  const profileText = await fs.readFile(input.profileFile, 'utf8');
  await put('profile', profileText, rel(input.vault, input.profileFile));
  for (const skill of skillsOf(profileText)) {
    const file = path.join(path.dirname(input.profileFile), 'skills', skill, 'SKILL.md');
    try {
      await put(`skill:${skill}`, await fs.readFile(file, 'utf8'), rel(input.vault, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      components.push({ name: `skill:${skill}`, source: rel(input.vault, file), missing: code === 'ENOENT' ? 'no SKILL.md' : `unreadable: ${code ?? (error as Error).message}` });
    }
  }
  await put('card', scrubText(input.cardText, input.privateEnv), `KANBAN/in-progress/${input.card}`);
  await put('harness', canonicalJson(input.harness), `harness ${input.harnessName}`);
  await put('prompt', scrubText(input.command.prompt, input.privateEnv), `harness ${input.harnessName} prompt_template`);

  let flow: string | undefined;
  let director: string | undefined;
  try {
    const data = parseFrontMatter(input.cardText).data;
    if (typeof data.flow === 'string' && data.flow !== '') flow = data.flow;
    if (typeof data.director === 'string' && data.director !== '') director = data.director;
  } catch {
    // The card was just stamped by the board; an unreadable front matter here is not ours to report.
  }

  const manifest: RunManifest = {
    version: 1,
    run: input.runId,
    card: input.card,
    profile: input.profile,
    harness: input.harnessName,
    model: input.model,
    claim: input.claim,
    ...(flow !== undefined ? { flow } : {}),
    ...(director !== undefined ? { director } : {}),
    paths: input.paths,
    components,
    argv: [input.command.file, ...input.command.args].map((a) => scrubText(a, input.privateEnv)),
    cwd: input.command.cwd,
    env: scrubEnv(input.command.env, input.command.privateNames, input.privateEnv),
    private_keys: [...input.command.privateNames],
    log: input.log,
    ...(input.cause !== undefined ? { cause: input.cause } : {}),
    ...(input.replayOf !== undefined ? { replay_of: input.replayOf } : {}),
    ...(input.substitutions !== undefined ? { substitutions: input.substitutions } : {}),
  };
  if (!(await createManifest(input.logsDir, manifest))) throw new Error(`a manifest for run ${input.runId} already exists`);
  return { manifest, file: manifestFile(input.logsDir, input.runId) };
}

/** The skills a worker profile mounts (a director mounts none). */
export function skillsOf(profileText: string): string[] {
  try {
    const skills = parseFrontMatter(profileText).data.skills;
    return Array.isArray(skills) ? skills.filter((s): s is string => typeof s === 'string' && /^[^/\\]+$/.test(s) && s !== '..' && s !== '.') : [];
  } catch {
    return [];
  }
}
