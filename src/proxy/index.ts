/**
 * The credential proxy (DESIGN-18 "Credential proxy"): what the supervisor needs to run one.
 *
 *   const prepared = prepareRunProxy({ harness, profileBudget: profile.budget, board, run, card });
 *   if (!prepared.ok) → the harness has no model endpoint (prepared.reason): run without a proxy, or refuse
 *   const proxy = await startCredentialProxy({ ...prepared.options, listen: { socketPath }, allowHosts, onOverBudget });
 *   worker env: { ...harness.environment, ...prepared.workerEnv(proxyUrlAsTheWorkerSeesIt) } (no private value in it)
 *   at the end: record proxy.usage() as the run's `usage`, then await proxy.close()
 */
import type { Budget } from '../schema/config.js';
import type { Harness } from '../schema/harness.js';
import type { Prices } from '../schema/models.js';
import { runBudget } from './budget.js';
import type { CredentialProxyOptions } from './credential-proxy.js';
import { resolveEndpoint, secretsFor, type Endpoint } from './endpoint.js';

export { startCredentialProxy, type CredentialProxy, type CredentialProxyOptions } from './credential-proxy.js';
export { placeholderOf, resolveEndpoint, secretsFor, type Endpoint, type EndpointChoice } from './endpoint.js';
export { overBudget, runBudget, type OverBudget } from './budget.js';
export { appendSpend, DailySpend, readDaySpend, spendFile, type SpendLine } from './ledger.js';
export type { UsageTotals } from './usage.js';

export interface RunProxyInput {
  readonly harness: Harness;
  /** The profile's `budget`; the lower of it and the harness's wins, field by field. */
  readonly profileBudget?: Budget | undefined;
  readonly board: {
    readonly prices: Prices;
    readonly privateEnv: ReadonlyMap<string, string>;
    readonly config: { readonly logsDir: string; readonly daily_budget?: Budget | undefined };
  };
  readonly run: string;
  /** The card's file name, as the ledger books it. */
  readonly card: string;
}

export interface PreparedRunProxy {
  readonly ok: true;
  readonly endpoint: Endpoint;
  /** Everything startCredentialProxy needs but where to listen and the callbacks. */
  readonly options: Omit<CredentialProxyOptions, 'listen'>;
  /** The worker's endpoint variable and placeholders: set these instead of the private values. */
  workerEnv(proxyUrl: string): Record<string, string>;
}

export function prepareRunProxy(input: RunProxyInput): PreparedRunProxy | { ok: false; reason: string } {
  const choice = resolveEndpoint(input.harness);
  if (!choice.ok) return choice;
  const { endpoint } = choice;
  const budget = runBudget(input.harness.budget, input.profileBudget);
  const daily = input.board.config.daily_budget;
  return {
    ok: true,
    endpoint,
    options: {
      upstream: endpoint.upstream,
      secrets: secretsFor(endpoint.placeholders, input.board.privateEnv),
      prices: input.board.prices,
      ledger: { logsDir: input.board.config.logsDir, run: input.run, card: input.card },
      ...(budget ? { budget } : {}),
      ...(daily ? { dailyBudget: daily } : {}),
    },
    workerEnv: (proxyUrl) => ({ [endpoint.urlEnv]: proxyUrl, ...Object.fromEntries(endpoint.placeholders) }),
  };
}
