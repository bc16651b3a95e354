import { UsageError } from '../errors.js';
import { listManifests, sumCosts, type CostGrouping } from '../provenance/index.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';

export interface CostOptions extends GlobalOptions {
  readonly by?: string;
}

const GROUPINGS: readonly CostGrouping[] = ['profile', 'flow', 'day', 'model', 'harness'];

/** `board cost`: the recorded cost of every run, summed by profile, flow, day, model or harness. */
export async function costCommand(options: CostOptions, env: CommandEnv): Promise<number> {
  const by = (options.by ?? 'profile') as CostGrouping;
  if (!GROUPINGS.includes(by)) throw new UsageError(`--by: "${options.by}" is not one of ${GROUPINGS.join(', ')}`);
  const { board } = await prepare(options, env);
  const { manifests, problems } = await listManifests(board.config.logsDir);
  for (const p of problems) env.logger.warn({ file: p.file }, p.reason);
  const rows = sumCosts(manifests, by);
  const total = rows.reduce((t, r) => ({ runs: t.runs + r.runs, costed: t.costed + r.costed, tokens: t.tokens + r.tokens, usd: t.usd + r.usd }), { runs: 0, costed: 0, tokens: 0, usd: 0 });
  if (options.json) {
    env.stdout(`${JSON.stringify({ by, rows, total }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    env.stdout(`no runs recorded in ${board.config.logsDir}/manifests\n`);
    return 0;
  }
  const table = [[by, 'runs', 'costed', 'tokens', 'usd'], ...[...rows, { key: 'total', ...total }].map((r) => [r.key, String(r.runs), String(r.costed), String(r.tokens), r.usd.toFixed(4)])];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  env.stdout(`${table.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n')}\n`);
  if (total.costed < total.runs) env.stdout(`\n${total.runs - total.costed} run(s) recorded no cost (their harness declares no \`cost\`, or they have not ended).\n`);
  return 0;
}
