import { UsageError } from '../errors.js';
import { ObjectStore, diffRuns, renderRunDiff } from '../provenance/index.js';
import { resolveRun } from '../provenance/resolve-run.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';

/** `board diff RUN_A RUN_B`: components same, changed, added or gone, with a text diff of the changed ones. */
export async function diffCommand(refA: string, refB: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  const { board } = await prepare(options, env);
  const a = await resolveRun(board.config.logsDir, refA);
  if (!a.ok) throw new UsageError(a.reason);
  const b = await resolveRun(board.config.logsDir, refB);
  if (!b.ok) throw new UsageError(b.reason);
  const store = new ObjectStore(board.config.logsDir);
  // Equal hashes are "same" without reading either object: check them all first.
  await store.checkComponents([...a.manifest.components, ...b.manifest.components]);
  const diff = await diffRuns(store, a.manifest, b.manifest);
  env.stdout(options.json ? `${JSON.stringify(diff, null, 2)}\n` : renderRunDiff(diff));
  return 0;
}
