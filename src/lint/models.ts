import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pickModel } from '../core/models.js';
import { modelCapacity, modelModality } from '../schema/profile.js';
import { modelsSchema } from '../schema/models.js';
import { isRecord, type Finding, type HarnessDoc, type LintInput } from './types.js';

/**
 * The models table can serve every profile: for each profile, its harness (or the default) ×
 * `model_capacity` × `model_modality` has a model, and every harness row names an installed harness.
 */
export function checkModels(input: LintInput): Finding[] {
  const parsed = modelsSchema.safeParse(input.models.data);
  if (input.models.error !== undefined || !parsed.success) return []; // the schema check reports it
  const models = parsed.data;
  const installed = new Set(input.harnesses.map((h) => h.name));
  const findings: Finding[] = [];
  for (const harness of Object.keys(models)) {
    if (!installed.has(harness)) findings.push({ check: 'models', file: input.models.file, field: harness, reason: `a row for harness "${harness}", which is not installed` });
  }
  for (const doc of input.profiles) {
    if (!isRecord(doc.data) || typeof doc.data.name !== 'string') continue;
    const harness = typeof doc.data.harness === 'string' ? doc.data.harness : input.defaultHarness;
    const capacity = modelCapacity.safeParse(doc.data.model_capacity ?? 'standard');
    const modality = modelModality.safeParse(doc.data.model_modality ?? 'text');
    if (!capacity.success || !modality.success) continue; // the schema check reports it
    if (!installed.has(harness)) {
      findings.push({ check: 'models', file: doc.file, field: 'harness', reason: `harness "${harness}" is not installed: its cards would wait forever` });
      continue;
    }
    const choice = pickModel(models, harness, capacity.data, modality.data);
    if (!choice.ok) findings.push({ check: 'models', file: doc.file, field: 'model_capacity', reason: `${choice.reason}: its cards would wait forever` });
  }
  return findings;
}

/** What an installed CLI says about models when asked offline: the ids it knows, or null. */
export interface ModelCatalog {
  readonly cli: string;
  readonly known: ReadonlySet<string>;
  /** Known but hidden from the CLI's own picker (retired or internal). */
  readonly hidden: ReadonlySet<string>;
}

/** Which of the CLIs that can be asked offline a harness runs, by its command. */
export function catalogCliOf(harness: HarnessDoc): 'codex' | 'opencode' | null {
  if (!isRecord(harness.data) || !Array.isArray(harness.data.command)) return null;
  const words = harness.data.command.filter((w): w is string => typeof w === 'string').slice(0, 2).join(' ');
  if (/(^|[/\s])codex(-isolated\.mjs)?(\s|$)/.test(words)) return 'codex';
  if (/(^|[/\s])opencode(-isolated\.mjs)?(\s|$)/.test(words)) return 'opencode';
  return null;
}

/**
 * Models a CLI does not know or hides, for the harnesses whose CLI can be asked offline (pure: the
 * catalogs are gathered by the shell, see askModelCatalogs). Claude Code cannot be asked offline:
 * docs/harnesses.md says how to check its rows.
 */
export function checkModelCatalogs(input: LintInput, catalogs: ReadonlyMap<string, ModelCatalog>): Finding[] {
  const parsed = modelsSchema.safeParse(input.models.data);
  if (!parsed.success) return [];
  const warnings: Finding[] = [];
  for (const [harness, row] of Object.entries(parsed.data)) {
    const catalog = catalogs.get(harness);
    if (!catalog) continue;
    for (const [level, value] of Object.entries(row as Record<string, unknown>)) {
      const ids = typeof value === 'string' ? [value] : isRecord(value) ? Object.values(value).filter((v): v is string => typeof v === 'string') : [];
      for (const id of ids) {
        if (!catalog.known.has(id)) warnings.push({ check: 'models', severity: 'warning', file: input.models.file, field: `${harness}.${level}`, reason: `${catalog.cli} does not know model "${id}" (retired, renamed or misspelled): cards would fail or run another model` });
        else if (catalog.hidden.has(id)) warnings.push({ check: 'models', severity: 'warning', file: input.models.file, field: `${harness}.${level}`, reason: `${catalog.cli} lists model "${id}" as hidden (no longer offered)` });
      }
    }
  }
  return warnings;
}

/**
 * Ask the installed CLIs, offline, which models they know: `codex debug models --bundled` (its
 * bundled catalog) and `opencode models <provider>` with OPENCODE_DISABLE_MODELS_FETCH=1 (its
 * bundled list), each found on the harness's PATH, in a throwaway HOME. A CLI that is missing or
 * does not answer is skipped silently: this is advice, not a check that can fail.
 */
export function askModelCatalogs(input: LintInput): Map<string, ModelCatalog> {
  const out = new Map<string, ModelCatalog>();
  const parsed = modelsSchema.safeParse(input.models.data);
  if (!parsed.success) return out;
  for (const harness of input.harnesses) {
    const cli = catalogCliOf(harness);
    const row = parsed.data[harness.name];
    if (!cli || !row || !isRecord(harness.data)) continue;
    const environment = isRecord(harness.data.environment) ? (harness.data.environment as Record<string, unknown>) : {};
    const pathVar = typeof environment.PATH === 'string' ? environment.PATH : (process.env.PATH ?? '');
    const override = environment[cli === 'codex' ? 'CODEX_BIN' : 'OPENCODE_BIN'];
    const program = typeof override === 'string' ? override : pathVar.split(path.delimiter).map((d) => path.join(d, cli)).find((f) => isExecutable(f));
    if (!program) continue;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'board-lint-models-'));
    try {
      const env: NodeJS.ProcessEnv = { PATH: pathVar, HOME: home, CODEX_HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'share'), XDG_CACHE_HOME: path.join(home, 'cache'), XDG_STATE_HOME: path.join(home, 'state'), OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' };
      if (cli === 'codex') {
        const r = spawnSync(program, ['debug', 'models', '--bundled'], { env, encoding: 'utf8', timeout: 20_000 });
        if (r.status !== 0) continue;
        const models = (JSON.parse(r.stdout) as { models?: { slug?: string; visibility?: string }[] }).models ?? [];
        out.set(harness.name, { cli: 'codex', known: new Set(models.map((m) => String(m.slug))), hidden: new Set(models.filter((m) => m.visibility !== 'list').map((m) => String(m.slug))) });
      } else {
        const ids = Object.values(row).flatMap((v) => (typeof v === 'string' ? [v] : isRecord(v) ? Object.values(v) : [])).filter((v): v is string => typeof v === 'string');
        const known = new Set<string>();
        for (const provider of new Set(ids.map((id) => id.split('/')[0]!))) {
          // A provider is listed only when its key is set: a placeholder is enough to list its models.
          const key = `${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;
          const r = spawnSync(program, ['models', provider], { env: { ...env, [key]: 'offline-listing' }, encoding: 'utf8', timeout: 30_000 });
          if (r.status !== 0) continue;
          for (const line of r.stdout.split('\n')) if (line.trim().includes('/')) known.add(line.trim());
        }
        if (known.size > 0) out.set(harness.name, { cli: 'opencode', known, hidden: new Set() });
      }
    } catch {
      // not answered: no advice
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }
  return out;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
