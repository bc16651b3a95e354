import type { LoadedBoard } from '../config/load-config.js';
import type { RunJobProxy } from '../round/spawner.js';
import type { Budget } from '../schema/config.js';
import type { Harness } from '../schema/harness.js';
import { prepareRunProxy } from './index.js';

/**
 * A run's credential proxy, decided at dispatch (DESIGN-18 "No key in the worker"): what its
 * supervisor needs to run it, and what the worker gets instead of the keys. A harness with no model
 * endpoint and no private key (a model-free script) runs without one; a harness that holds keys but
 * names no endpoint cannot start, since its keys would have nowhere to go but the worker.
 */
export type JobProxy =
  | { readonly ok: true; readonly proxy?: RunJobProxy; readonly workerEnv: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly reason: string };

export function jobProxy(harness: Harness, board: Pick<LoadedBoard, 'prices' | 'privateEnv' | 'config'>, run: { runId: string; card: string; profileBudget?: Budget | undefined }): JobProxy {
  const prepared = prepareRunProxy({ harness, profileBudget: run.profileBudget, board, run: run.runId, card: run.card });
  if (!prepared.ok) {
    if (harness.environment_from_private.length === 0) return { ok: true, workerEnv: {} };
    return { ok: false, reason: prepared.reason };
  }
  const o = prepared.options;
  return {
    ok: true,
    proxy: {
      urlEnv: prepared.endpoint.urlEnv,
      upstream: o.upstream,
      secrets: [...o.secrets],
      ...(o.prices !== undefined ? { prices: o.prices } : {}),
      ...(o.budget !== undefined ? { budget: o.budget } : {}),
      ...(o.dailyBudget !== undefined ? { dailyBudget: o.dailyBudget } : {}),
      ledger: o.ledger!,
    },
    // The URL is the supervisor's to set (the sandbox's bridge port, or the proxy's loopback port).
    workerEnv: prepared.workerEnv(''),
  };
}
