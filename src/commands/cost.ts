import { UsageError } from '../errors.js';
import { localDate } from '../core/time.js';
import { readDaySpend } from '../proxy/ledger.js';
import { listManifests, sumCosts, type CostGrouping, type RunManifest } from '../provenance/index.js';
import type { Budget } from '../schema/config.js';
import { readRunRecord } from '../vault/runs.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';

export interface CostOptions extends GlobalOptions {
  readonly by?: string;
}

const GROUPINGS: readonly CostGrouping[] = ['profile', 'flow', 'day', 'model', 'harness', 'card', 'run'];

/**
 * Each run's usage as measured by its credential proxy: from its manifest, else from its run
 * record (the supervisor writes both; a manifest written before the run ended may lack it).
 */
async function withMeasuredUsage(manifests: readonly RunManifest[], kanbanDir: string): Promise<RunManifest[]> {
  return Promise.all(
    manifests.map(async (m) => {
      if (m.usage || m.end === undefined) return m;
      const usage = (await readRunRecord(kanbanDir, m.run))?.usage;
      return usage ? { ...m, usage } : m;
    }),
  );
}

/** `12% of 100000 tokens`, `$1.2345 of $5 (25%)`: spend against one limit. */
function against(spent: number, limit: number | undefined, usd: boolean): string {
  const figure = usd ? `$${spent.toFixed(4)}` : String(spent);
  if (limit === undefined) return figure;
  return `${figure} of ${usd ? `$${limit}` : limit} (${Math.floor((spent / limit) * 100)}%)`;
}

/** `board cost`: the cost of every run (measured at the proxy, else recorded from its log), summed; today's spend against `daily_budget`. */
export async function costCommand(options: CostOptions, env: CommandEnv): Promise<number> {
  const by = (options.by ?? 'profile') as CostGrouping;
  if (!GROUPINGS.includes(by)) throw new UsageError(`--by: "${options.by}" is not one of ${GROUPINGS.join(', ')}`);
  const { board, layout, now } = await prepare(options, env);
  const { manifests, problems } = await listManifests(board.config.logsDir);
  for (const p of problems) env.logger.warn({ file: p.file }, p.reason);
  const rows = sumCosts(await withMeasuredUsage(manifests, layout.kanban), by);
  const total = rows.reduce((t, r) => ({ runs: t.runs + r.runs, costed: t.costed + r.costed, tokens: t.tokens + r.tokens, usd: t.usd + r.usd }), { runs: 0, costed: 0, tokens: 0, usd: 0 });
  const spend = await readDaySpend(board.config.logsDir, now);
  const budget: Budget | undefined = board.config.daily_budget;
  const today = { date: localDate(now), responses: spend.responses, tokens: spend.tokens, usd: spend.usd, daily_budget: budget ?? null };
  if (options.json) {
    env.stdout(`${JSON.stringify({ by, rows, total, today }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) env.stdout(`no runs recorded in ${board.config.logsDir}/manifests\n`);
  else {
    const table = [[by, 'runs', 'costed', 'tokens', 'usd'], ...[...rows, { key: 'total', ...total }].map((r) => [r.key, String(r.runs), String(r.costed), String(r.tokens), r.usd.toFixed(4)])];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
    env.stdout(`${table.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n')}\n`);
    if (total.costed < total.runs) env.stdout(`\n${total.runs - total.costed} run(s) recorded no cost (no usage measured by the proxy and no \`cost\` in their harness, or they have not ended).\n`);
  }
  env.stdout(
    `\ntoday (${today.date}): ${against(spend.tokens, budget?.tokens, false)} tokens, ${against(spend.usd, budget?.usd, true)} over ${spend.responses} metered answer(s)${budget ? '' : '; no `daily_budget` in board.yml'}\n`,
  );
  return 0;
}
