import fs from 'node:fs/promises';
import path from 'node:path';
import { slugOf } from '../card/new.js';
import { localDate } from '../core/time.js';
import { UsageError } from '../errors.js';
import { EXAMPLE_PROFILE, STATE_FOLDERS, scaffoldFiles } from '../init/templates.js';
import { resolveNow, type CommandEnv, type GlobalOptions } from './common.js';

const EXECUTABLE = /\.mjs$/;

/**
 * `board init [DIR]`: a working board in one command. Writes nothing over anything: when one of
 * its files is already there, it stops before writing any (exit 2), so running it twice is safe.
 */
export async function initCommand(dir: string | undefined, options: GlobalOptions, env: CommandEnv): Promise<number> {
  const root = path.resolve(env.cwd, dir ?? '.');
  const now = resolveNow(options.now, env.clock);
  const request = 'Write a short note about what this board does';
  const cardName = `${localDate(now)}-${slugOf(request)}.md`;
  const files = scaffoldFiles(now.toISOString(), cardName);

  const present: string[] = [];
  for (const rel of Object.keys(files)) {
    if (await fs.lstat(path.join(root, rel)).then(() => true, () => false)) present.push(rel);
  }
  if (present.length > 0) {
    throw new UsageError(`board init: ${root} already holds ${present.join(', ')}; nothing was written (init a new folder, or remove them)`);
  }
  for (const state of STATE_FOLDERS) await fs.mkdir(path.join(root, 'vault', 'KANBAN', state), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // `wx`: a file that appeared since the check above is never replaced.
    await fs.writeFile(file, text, { flag: 'wx', mode: EXECUTABLE.test(rel) ? 0o755 : 0o644 });
  }

  const here = path.resolve(env.cwd) === root;
  const result = { root, config: path.join(root, 'board.yml'), files: Object.keys(files).sort() };
  if (options.json) {
    env.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  env.stdout(
    [
      `a board in ${root}:`,
      ...result.files.map((f) => `  ${f}`),
      '',
      'next:',
      // Absolute and quoted: pasted into any shell, from any folder, a space or a quote in it is no harm.
      ...(here ? [] : [`  cd ${shellQuote(root)}`, '                               board.yml is found there or in a parent folder, as git does']),
      `  board dry-run                what a round would do (the example card goes to ${EXAMPLE_PROFILE})`,
      '  board tick                   one round: the model-free worker writes the note and closes the card',
      '  board status                 the board at a glance',
      '  board profile new NAME       a profile of your own (then edit its handles)',
      '  board card new --function write --request "Write a note about …"',
      '',
    ].join('\n'),
  );
  return 0;
}

/** A POSIX shell word for any text: single quotes, each `'` written as `'\\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}
