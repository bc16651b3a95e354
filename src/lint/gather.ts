import fs from 'node:fs/promises';
import path from 'node:path';
import { findConfigFile, readPrivateEnv } from '../config/load-config.js';
import { FrontMatterError, loadYaml, parseFrontMatter } from '../format/frontmatter.js';
import { configSchema } from '../schema/config.js';
import { ConfigError, zodProblems } from '../errors.js';
import { isCardFileName, VaultLayout } from '../vault/layout.js';
import { mapLimit } from '../vault/read-card.js';
import { isRecord, type CardDoc, type HarnessDoc, type LintInput, type ProfileDoc, type ReadDoc } from './types.js';
import { isReachable } from '../vault/exists.js';
import { programProblem, type ProgramPlace } from '../config/program.js';
import { sandboxStartProblem } from '../sandbox/start-problem.js';
import { harnessSchema } from '../schema/harness.js';

export interface LintLocation {
  readonly config?: string | undefined;
  readonly vault?: string | undefined;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

const CONCURRENCY = 64;

/**
 * Read everything lint checks, without judging any of it: the config must be sound (exit 2 if not,
 * as for every command), everything else is read as raw data for the checks to judge.
 */
export async function gatherLintInput(where: LintLocation): Promise<LintInput & { vault: string }> {
  const configFile = findConfigFile(where);
  const raw = await readYaml(configFile);
  if (raw.error === 'not found' && !(where.config || where.env.BOARD_CONFIG)) {
    throw new ConfigError([{ file: configFile, reason: `no board.yml in ${where.cwd} or any folder above it: run \`board init\` to make a board, or pass --config FILE` }]);
  }
  if (raw.error !== undefined) throw new ConfigError([{ file: configFile, ...(raw.errorLine !== undefined ? { line: raw.errorLine } : {}), reason: raw.error === 'not found' ? 'config file not found' : raw.error }]);
  const parsed = configSchema.safeParse(where.vault ? { ...(isRecord(raw.data) ? raw.data : {}), vault: where.vault } : raw.data);
  if (!parsed.success) throw new ConfigError(zodProblems(configFile, parsed.error, { kind: 'config', ...(raw.text !== undefined ? { text: raw.text } : {}) }));
  const base = path.dirname(configFile);
  const config = parsed.data;
  const layout = new VaultLayout(where.vault ? path.resolve(where.cwd, where.vault) : path.resolve(base, config.vault));
  const harnessesDir = path.resolve(base, config.harnesses);
  // The private env file is config too: a malformed one (file and line named, never the value)
  // fails lint as it fails every tick.
  const privateEnvFile = config.private_env ? path.resolve(base, config.private_env) : undefined;
  if (privateEnvFile) await readPrivateEnv(privateEnvFile);
  const privateEnv = privateEnvFile ? { file: privateEnvFile, mode: (await fs.stat(privateEnvFile)).mode } : undefined;

  const [profiles, cards, harnesses, models, archivedNames] = await Promise.all([
    readProfiles(layout),
    readCards(layout),
    readHarnesses(harnessesDir, config.adapters ? path.resolve(base, config.adapters) : undefined, {
      harnessesDir,
      vault: layout.root,
      boardPath: where.env.PATH ?? '/usr/bin:/bin',
      sandbox: {
        vault: layout.root,
        harnessesDir,
        configFile,
        privateEnvFile: config.private_env ? path.resolve(base, config.private_env) : undefined,
        logsDir: path.resolve(base, config.logs),
        env: where.env,
      },
    }),
    readYaml(path.resolve(base, config.models)),
    readArchivedNames(layout),
  ]);
  return { vault: layout.root, profiles, cards, harnesses, models, defaultHarness: config.default_harness, archivedNames, ...(privateEnv ? { privateEnv } : {}) };
}

async function readYaml(file: string): Promise<ReadDoc> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { file, error: code === 'ENOENT' ? 'not found' : (error as Error).message };
  }
  try {
    return { file, data: loadYaml(text), text };
  } catch (error) {
    // loadYaml counts a front matter's opening fence as line 1: a plain YAML file is one less.
    return { file, error: (error as Error).message, ...errorLine(error, -1), text };
  }
}

function errorLine(error: unknown, shift: number): { errorLine?: number } {
  return error instanceof FrontMatterError && error.line !== undefined ? { errorLine: error.line + shift } : {};
}

async function readFrontMatter(absolute: string, shown: string): Promise<ReadDoc> {
  let text: string;
  try {
    text = await fs.readFile(absolute, 'utf8');
  } catch (error) {
    return { file: shown, error: (error as Error).message };
  }
  try {
    return { file: shown, data: parseFrontMatter(text).data, text };
  } catch (error) {
    return { file: shown, error: (error as Error).message, ...errorLine(error, 0), text };
  }
}

async function entries(dir: string): Promise<import('node:fs').Dirent[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}


async function readProfiles(layout: VaultLayout): Promise<ProfileDoc[]> {
  const dirs = (await entries(layout.agents)).filter((d) => d.isDirectory() && !d.name.startsWith('.'));
  const docs = await mapLimit(dirs, CONCURRENCY, async (d): Promise<ProfileDoc | undefined> => {
    const dir = path.join(layout.agents, d.name);
    const file = path.join(dir, 'PROFILE.md');
    if (!(await isReachable(file))) return undefined;
    const doc = await readFrontMatter(file, layout.relative(file));
    const skillsPresent = new Set<string>();
    for (const s of await entries(path.join(dir, 'skills'))) {
      if (s.isDirectory() && (await isReachable(path.join(dir, 'skills', s.name, 'SKILL.md')))) skillsPresent.add(s.name);
    }
    return { ...doc, skillsPresent };
  });
  return docs.filter((d): d is ProfileDoc => d !== undefined);
}

async function readCards(layout: VaultLayout): Promise<CardDoc[]> {
  const folders: { dir: string; template: boolean }[] = [
    { dir: layout.scheduled, template: true },
    { dir: layout.pending, template: false },
    { dir: layout.inProgress, template: false },
    { dir: layout.done, template: false },
  ];
  const lists = await Promise.all(
    folders.map(async ({ dir, template }) => {
      const names = (await entries(dir)).filter((e) => e.isFile() && isCardFileName(e.name)).map((e) => e.name);
      return mapLimit(names, CONCURRENCY, async (n) => ({ ...(await readFrontMatter(path.join(dir, n), layout.relative(path.join(dir, n)))), template }));
    }),
  );
  return lists.flat();
}

/** Card names in archive/YYYY-MM/ (only names: a flow's child may rest there). */
async function readArchivedNames(layout: VaultLayout): Promise<string[]> {
  const months = (await entries(layout.archive)).filter((d) => d.isDirectory());
  const lists = await Promise.all(months.map(async (m) => (await entries(path.join(layout.archive, m.name))).filter((e) => e.isFile() && isCardFileName(e.name)).map((e) => e.name)));
  return lists.flat();
}

async function readHarnesses(harnessesDir: string, adaptersFile: string | undefined, place: ProgramPlace): Promise<HarnessDoc[]> {
  const docs: HarnessDoc[] = [];
  // The fact the program check judges: only for a harness that passes its schema.
  const program = (data: unknown): { programProblem?: string; sandboxProblem?: string } => {
    const parsed = harnessSchema.safeParse(data);
    if (!parsed.success) return {};
    const problem = programProblem(parsed.data, place);
    const sandbox = place.sandbox ? sandboxStartProblem(parsed.data, place.sandbox) : undefined;
    return { ...(problem !== undefined ? { programProblem: problem } : {}), ...(sandbox !== undefined ? { sandboxProblem: sandbox } : {}) };
  };
  const guard = async (data: unknown): Promise<boolean | undefined> => {
    if (!isRecord(data) || typeof data.credential_guard !== 'string' || data.credential_guard.trim() === '') return undefined;
    return isReachable(path.resolve(harnessesDir, data.credential_guard));
  };
  for (const e of await entries(harnessesDir)) {
    if (!e.isFile() || !/\.ya?ml$/.test(e.name)) continue;
    const doc = await readYaml(path.join(harnessesDir, e.name));
    const guardExists = await guard(doc.data);
    docs.push({ ...doc, name: e.name.replace(/\.ya?ml$/, ''), ...(guardExists !== undefined ? { guardExists } : {}), ...program(doc.data) });
  }
  if (adaptersFile) {
    const doc = await readYaml(adaptersFile);
    if (doc.error !== undefined || !isRecord(doc.data)) {
      docs.push({ file: adaptersFile, name: '(adapters)', ...(doc.error !== undefined ? { error: doc.error } : { error: 'an adapters file is a map of harness name to definition' }) });
    } else {
      for (const [name, data] of Object.entries(doc.data)) {
        if (docs.some((d) => d.name === name)) continue; // a harness file wins, as in the round
        const guardExists = await guard(data);
        docs.push({ file: adaptersFile, name, data, ...(guardExists !== undefined ? { guardExists } : {}), ...program(data) });
      }
    }
  }
  return docs;
}
