import { composeCommand, type ComposedCommand } from '../core/compose.js';
import type { Harness } from '../schema/harness.js';
import type { RunManifest } from './manifest.js';
import type { ObjectStore } from './store.js';

/**
 * Rebuilding a run's request: an INSTALLED harness definition (the one the config's harnesses
 * folder holds now, never one read from the store: the store is data anyone who could write
 * `logs/` may have planted) renders the stored paths into the prompt and the prompt and stored
 * model into argv, as at dispatch. `identical` says whether that reproduces the stored argv and
 * prompt byte for byte. A replay may deliberately change the model, the harness, or the card path
 * (to a scratch copy); each change is returned as a substitution, so nothing differs in silence.
 */

export interface RebuildOptions {
  /** Another model instead of the stored one. */
  readonly model?: string | undefined;
  /** The installed harness to run (name and definition); another name than the run's is a substitution. */
  readonly harness: { readonly name: string; readonly definition: Harness };
  /** Render `{card}` with this path instead of the original card's (a replay's scratch copy). */
  readonly cardPath?: string | undefined;
  /** Private values for the worker's env; absent in previews (placeholders stand in, never printed values). */
  readonly privateEnv?: ReadonlyMap<string, string> | undefined;
  readonly boardEnv?: Readonly<Record<string, string>> | undefined;
  readonly fallbackPath?: string | undefined;
}

export interface RebuiltRequest {
  readonly harnessName: string;
  readonly harness: Harness;
  readonly model: string;
  readonly command: ComposedCommand;
  /** argv as spawned: `[file, ...args]`. */
  readonly argv: string[];
  readonly prompt: string;
  readonly substitutions: Record<string, { from: string; to: string }>;
  /** With no substitution: whether argv and prompt are byte-identical to the stored run's. */
  readonly identical: boolean;
}

export async function storedText(store: ObjectStore, manifest: RunManifest, component: string): Promise<string> {
  const c = manifest.components.find((x) => x.name === component);
  if (!c) throw new Error(`run ${manifest.run} has no ${component} component`);
  if (!c.hash) throw new Error(`run ${manifest.run}'s ${component} was not stored (${c.missing ?? 'missing'})`);
  return store.getText(c.hash);
}

/**
 * The harness definition a run recorded, as data to compare with the installed one (never to run):
 * its fields, or the sentence saying why it cannot be read as a definition.
 */
export async function recordedHarness(store: ObjectStore, manifest: RunManifest): Promise<Record<string, unknown> | string> {
  const text = await storedText(store, manifest, 'harness');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return `run ${manifest.run}'s recorded harness is not JSON`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return `run ${manifest.run}'s recorded harness is not a definition (a JSON object)`;
  return data as Record<string, unknown>;
}

export async function rebuildRequest(store: ObjectStore, manifest: RunManifest, options: RebuildOptions): Promise<RebuiltRequest> {
  const harnessName = options.harness.name;
  const harness = options.harness.definition;
  const model = options.model ?? manifest.model;
  const card = options.cardPath ?? manifest.paths.card;
  const privateEnv = options.privateEnv ?? new Map(harness.environment_from_private.map((k) => [k, `<private:${k}>`]));
  const composed = composeCommand({
    harness,
    model,
    profile: manifest.paths.profile,
    card,
    vault: manifest.paths.vault,
    privateEnv,
    boardEnv: options.boardEnv ?? {},
    fallbackPath: options.fallbackPath ?? manifest.env.PATH ?? '/usr/bin:/bin',
    resolveDir: () => manifest.cwd,
    ...(manifest.paths.harnesses !== undefined ? { harnessesDir: manifest.paths.harnesses } : {}),
  });
  if (!composed.ok) throw new Error(`cannot rebuild run ${manifest.run}: ${composed.reason}`);
  const command = composed.command;
  const substitutions: Record<string, { from: string; to: string }> = {};
  if (harnessName !== manifest.harness) substitutions.harness = { from: manifest.harness, to: harnessName };
  if (model !== manifest.model) substitutions.model = { from: manifest.model, to: model };
  if (card !== manifest.paths.card) substitutions.card = { from: manifest.paths.card, to: card };
  const argv = [command.file, ...command.args];
  const storedPrompt = await storedText(store, manifest, 'prompt');
  const identical = argv.length === manifest.argv.length && argv.every((a, i) => a === manifest.argv[i]) && command.prompt === storedPrompt;
  return { harnessName, harness, model, command, argv, prompt: command.prompt, substitutions, identical };
}

/** `<old>.replay-<n>`: the next free replay id among the existing run ids. */
export function nextReplayId(runId: string, existing: Iterable<string>): string {
  const prefix = `${runId}.replay-`;
  let max = 0;
  for (const id of existing) {
    if (!id.startsWith(prefix)) continue;
    const n = Number(id.slice(prefix.length));
    if (Number.isInteger(n) && n > max) max = n;
  }
  return `${prefix}${max + 1}`;
}
