import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { createFileExclusive, writeFileAtomic } from '../vault/atomic-write.js';
import { BOARD_RECORD_MAX_BYTES, readBoardText } from '../vault/board-file.js';
import { inFolder } from '../vault/file-ops.js';

/**
 * A run manifest: `<logs>/manifests/<runId>.json`. It lists the hashes of everything the run was
 * composed from (profile, each mounted skill, the card as claimed, the harness definition, the
 * rendered prompt), the argv as spawned (private values replaced by `<private:KEY>`), and, once the
 * supervisor sees the worker exit, its start, end, exit code and cost.
 */

export const componentSchema = z.object({
  /** `profile`, `skill:<name>`, `card`, `harness`, `prompt`. */
  name: z.string().min(1),
  hash: z.string().optional(),
  bytes: z.number().int().optional(),
  /** Where the content came from (a vault-relative path, or the harness name). */
  source: z.string().optional(),
  /** Set instead of `hash` when the component could not be read (a skill folder without SKILL.md). */
  missing: z.string().optional(),
});

export type Component = z.infer<typeof componentSchema>;

export const costSchema = z.object({
  tokens: z.number().optional(),
  usd: z.number().optional(),
  /** Why nothing could be read, when the harness declares `cost` and the log did not yield it. */
  error: z.string().optional(),
});

export type RunCost = z.infer<typeof costSchema>;

/** What the run's credential proxy measured (src/proxy/usage.ts UsageTotals). */
export const usageSchema = z.object({
  requests: z.number().int().nonnegative(),
  input_tokens: z.number().nonnegative(),
  output_tokens: z.number().nonnegative(),
  usd: z.number().nonnegative().optional(),
});

export const manifestSchema = z.object({
  version: z.literal(1),
  run: z.string().min(1),
  card: z.string().min(1),
  profile: z.string().min(1),
  harness: z.string().min(1),
  model: z.string().min(1),
  /** The claim's time (`claimed`), ISO 8601. */
  claim: z.string().min(1),
  flow: z.string().optional(),
  /** A flow child's `director`: the director's card, whose own runs count under this flow. */
  director: z.string().optional(),
  /** The absolute paths the prompt template and command were rendered with. */
  paths: z.object({ profile: z.string(), card: z.string(), vault: z.string(), harnesses: z.string().optional() }),
  components: z.array(componentSchema),
  argv: z.array(z.string()),
  cwd: z.string(),
  /** The worker's environment, private values replaced by `<private:KEY>`. */
  env: z.record(z.string(), z.string()),
  private_keys: z.array(z.string()).default([]),
  log: z.string(),
  /** The journal event of the claim (or of the replay) this run belongs to. */
  cause: z.string().optional(),
  replay_of: z.string().optional(),
  /** For a replay: what was deliberately changed from the original request. */
  substitutions: z.record(z.string(), z.object({ from: z.string(), to: z.string() })).optional(),
  start: z.string().optional(),
  end: z.string().optional(),
  exit_code: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  /** How the run ended (from the run record): the worker closed its card, exited, or was stopped. */
  ended: z.enum(['closed', 'exited', 'stopped']).optional(),
  /** Why it was stopped: reclaimed, cancelled, timed-out, returned. */
  stopped: z.string().optional(),
  /** The worker could not be started at all. */
  start_error: z.string().optional(),
  cost: costSchema.optional(),
  /** Usage measured by the run's credential proxy; preferred to `cost` (read from the log). */
  usage: usageSchema.optional(),
});

export type RunManifest = z.infer<typeof manifestSchema>;

export function manifestsDir(logsDir: string): string {
  return path.join(logsDir, 'manifests');
}

export function manifestFile(logsDir: string, runId: string): string {
  if (runId.includes('/') || runId.includes('\\') || runId.startsWith('.')) throw new Error(`not a run id: ${JSON.stringify(runId)}`);
  return path.join(manifestsDir(logsDir), `${runId}.json`);
}

const render = (m: RunManifest) => `${JSON.stringify(m, null, 2)}\n`;

/** Create a manifest that must not exist yet (false when it does). */
export async function createManifest(logsDir: string, manifest: RunManifest): Promise<boolean> {
  try {
    await inFolder(manifestsDir(logsDir), () => createFileExclusive(manifestFile(logsDir, manifest.run), render(manifest)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function readManifestFile(file: string): Promise<RunManifest> {
  const parsed = manifestSchema.safeParse(JSON.parse(await readBoardText(file, { maxBytes: BOARD_RECORD_MAX_BYTES })));
  if (!parsed.success) throw new Error(`${file}: not a run manifest (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

export async function readManifest(logsDir: string, runId: string): Promise<RunManifest | undefined> {
  try {
    return await readManifestFile(manifestFile(logsDir, runId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Merge fields into a manifest (the supervisor's end, exit code and cost), replaced atomically. */
export async function updateManifestFile(file: string, update: Partial<RunManifest>): Promise<RunManifest> {
  const merged = { ...(await readManifestFile(file)), ...update };
  await writeFileAtomic(file, render(merged));
  return merged;
}

export interface ManifestList {
  readonly manifests: RunManifest[];
  readonly problems: { file: string; reason: string }[];
}

/** Every manifest, oldest claim first. */
export async function listManifests(logsDir: string): Promise<ManifestList> {
  let names: string[];
  try {
    names = (await fs.readdir(manifestsDir(logsDir))).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { manifests: [], problems: [] };
    throw error;
  }
  const manifests: RunManifest[] = [];
  const problems: { file: string; reason: string }[] = [];
  for (const name of names) {
    const file = path.join(manifestsDir(logsDir), name);
    try {
      manifests.push(await readManifestFile(file));
    } catch (error) {
      problems.push({ file, reason: (error as Error).message });
    }
  }
  manifests.sort((a, b) => (a.claim < b.claim ? -1 : a.claim > b.claim ? 1 : a.run < b.run ? -1 : 1));
  return { manifests, problems };
}
