import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadYaml, FrontMatterError } from '../format/frontmatter.js';
import { configSchema, type ConfigFile } from '../schema/config.js';
import { adaptersSchema, harnessSchema, type Harness } from '../schema/harness.js';
import { modelPricesSchema, modelsSchema, type Models, type Prices } from '../schema/models.js';
import { ConfigError, zodProblems } from '../errors.js';
import type { FileProblem } from '../core/types.js';

/** The dispatcher's own tree, resolved: everything relative is relative to the config's folder. */
export interface BoardConfig extends Omit<ConfigFile, 'vault' | 'harnesses' | 'models' | 'logs' | 'private_env' | 'adapters'> {
  readonly configFile: string;
  readonly vault: string;
  readonly harnessesDir: string;
  readonly adaptersFile?: string;
  readonly modelsFile: string;
  readonly logsDir: string;
  readonly privateEnvFile?: string;
}

export interface LoadedBoard {
  readonly config: BoardConfig;
  readonly harnesses: ReadonlyMap<string, Harness>;
  /** Harness files that failed their schema: reported, left out. */
  readonly harnessProblems: readonly FileProblem[];
  readonly models: Models;
  /** models.yml `prices`: USD per million tokens by model id, for the credential proxy. */
  readonly prices: Prices;
  readonly privateEnv: ReadonlyMap<string, string>;
}

export interface ConfigLocation {
  readonly config?: string | undefined;
  readonly vault?: string | undefined;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export function findConfigFile(where: ConfigLocation): string {
  // An empty BOARD_CONFIG (as unit files often leave it) means unset, not "this folder".
  const chosen = where.config || where.env.BOARD_CONFIG;
  if (chosen) return path.resolve(where.cwd, chosen);
  return findUpward(where.cwd) ?? path.resolve(where.cwd, 'board.yml');
}

/** `board.yml` in the folder or the nearest parent that has one, as git finds its repository. */
export function findUpward(cwd: string, name = 'board.yml'): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Whether the config was named (flag or environment) rather than looked for. */
function named(where: ConfigLocation): boolean {
  return Boolean(where.config || where.env.BOARD_CONFIG);
}

async function readYamlFile(file: string, what: string): Promise<unknown> {
  return (await readYamlText(file, what)).data;
}

/** A YAML file's data, with its text for the line of each problem. */
async function readYamlText(file: string, what: string): Promise<{ data: unknown; text: string }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError([{ file, reason: code === 'ENOENT' ? `${what} not found` : `cannot read ${what}: ${(error as Error).message}` }]);
  }
  try {
    return { data: loadYaml(text), text };
  } catch (error) {
    // loadYaml counts the front matter's opening fence as line 1: a plain YAML file is one less.
    const line = error instanceof FrontMatterError && error.line !== undefined ? { line: error.line - 1 } : {};
    // loadYaml words its shape error for a card's front matter; this is a YAML file of its own.
    const message = (error as Error).message.replace(/^front matter must be a map of fields, not a list or a scalar$/, `a ${what} is a map of \`key: value\` lines, not a list or a single value`);
    throw new ConfigError([{ file, ...line, reason: message }]);
  }
}

export async function loadBoard(where: ConfigLocation): Promise<LoadedBoard> {
  const configFile = findConfigFile(where);
  if (!named(where) && !existsSync(configFile)) {
    throw new ConfigError([{ file: configFile, reason: `no board.yml in ${where.cwd} or any folder above it: run \`board init\` to make a board, or pass --config FILE` }]);
  }
  const { data: raw, text: configText } = await readYamlText(configFile, 'config file');
  const parsed = configSchema.safeParse(where.vault ? { ...(raw as object), vault: where.vault } : raw);
  if (!parsed.success) throw new ConfigError(zodProblems(configFile, parsed.error, { kind: 'config', text: configText }));
  const file = parsed.data;
  const base = path.dirname(configFile);
  const resolve = (p: string) => path.resolve(base, p);
  const config: BoardConfig = {
    ...file,
    configFile,
    vault: where.vault ? path.resolve(where.cwd, where.vault) : resolve(file.vault),
    harnessesDir: resolve(file.harnesses),
    modelsFile: resolve(file.models),
    logsDir: resolve(file.logs),
    ...(file.adapters ? { adaptersFile: resolve(file.adapters) } : {}),
    ...(file.private_env ? { privateEnvFile: resolve(file.private_env) } : {}),
  };

  const { harnesses, problems } = await loadHarnesses(config);
  if (!harnesses.has(config.default_harness) && !problems.some((p) => p.file.endsWith(`${config.default_harness}.yml`))) {
    const installed = [...harnesses.keys()].sort();
    throw new ConfigError([{ file: configFile, field: 'default_harness', reason: `\`default_harness\` names "${config.default_harness}", but ${config.harnessesDir} has no ${config.default_harness}.yml (${installed.length > 0 ? `installed: ${installed.join(', ')}` : 'no harness is installed'})` }]);
  }
  const modelsRaw = await readYamlText(config.modelsFile, 'models table');
  const models = modelsSchema.safeParse(modelsRaw.data);
  if (!models.success) throw new ConfigError(zodProblems(config.modelsFile, models.error, { kind: 'models', text: modelsRaw.text }));
  const prices = modelPricesSchema.parse(modelsRaw.data); // the same file, already valid
  const privateEnv = config.privateEnvFile ? await readPrivateEnv(config.privateEnvFile) : new Map<string, string>();
  return { config, harnesses, harnessProblems: problems, models: models.data, prices, privateEnv };
}

async function loadHarnesses(config: BoardConfig): Promise<{ harnesses: Map<string, Harness>; problems: FileProblem[] }> {
  const harnesses = new Map<string, Harness>();
  const problems: FileProblem[] = [];
  let names: string[] = [];
  try {
    names = (await fs.readdir(config.harnessesDir)).filter((n) => /\.ya?ml$/.test(n)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !config.adaptersFile) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError([{ file: config.harnessesDir, reason: code === 'ENOENT' ? 'the harnesses folder does not exist (is `harnesses` in the config right?)' : `cannot read the harnesses folder: ${code ?? (error as Error).message}` }]);
    }
  }
  for (const name of names) {
    const file = path.join(config.harnessesDir, name);
    try {
      const read = await readYamlText(file, 'harness file');
      const parsed = harnessSchema.safeParse(read.data);
      if (parsed.success) harnesses.set(name.replace(/\.ya?ml$/, ''), parsed.data);
      else problems.push(...zodProblems(file, parsed.error, { kind: 'harness', text: read.text }));
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems);
      else throw error;
    }
  }
  if (config.adaptersFile) {
    const parsed = adaptersSchema.safeParse(await readYamlFile(config.adaptersFile, 'adapters file'));
    if (!parsed.success) throw new ConfigError(zodProblems(config.adaptersFile, parsed.error, { kind: 'harness' }));
    for (const [name, harness] of Object.entries(parsed.data)) if (!harnesses.has(name)) harnesses.set(name, harness);
  }
  return { harnesses, problems };
}

/** `KEY=value` lines; `#` comments and blank lines ignored; optional surrounding quotes removed. */
export function parsePrivateEnv(text: string, file: string): Map<string, string> {
  const env = new Map<string, string>();
  const problems: FileProblem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(trimmed);
    // Never echo the line: it may hold a secret.
    if (!m) return void problems.push({ file, field: `line ${i + 1}`, reason: 'not a KEY=value line' });
    let value = m[2]!;
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
      value = value.slice(1, -1);
    }
    env.set(m[1]!, value);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return env;
}

export async function readPrivateEnv(file: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError([{ file, field: 'private_env', reason: code === 'ENOENT' ? 'the private env file named by `private_env` does not exist' : `cannot read the private env file: ${code ?? (error as Error).message}` }]);
  }
  return parsePrivateEnv(text, file);
}
