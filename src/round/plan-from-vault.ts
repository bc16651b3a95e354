import { planRound } from '../core/plan.js';
import { unstartableHarnesses, type ProgramPlace } from '../config/program.js';
import type { Plan, RoundSettings, VaultSnapshot } from '../core/types.js';
import type { LoadedBoard } from '../config/load-config.js';
import type { CensusCache } from '../vault/census-cache.js';
import type { RoundContext } from './context.js';
import { readSnapshot } from './read-snapshot.js';
import { startSandboxProbe } from '../sandbox/probe.js';

/** A fresh claim's supervisor normally starts within milliseconds; past this it never will. */
export const START_GRACE_MS = 5 * 60_000;

export function roundSettings(board: LoadedBoard): RoundSettings {
  const c = board.config;
  return {
    trustedOrigins: c.trusted_origins,
    maxAttempts: c.max_attempts,
    maxDispatches: c.max_dispatches_per_round,
    zombieAfterMs: c.zombie_after,
    startGraceMs: Math.min(START_GRACE_MS, c.zombie_after),
    leaseStaleAfterMs: c.lease_stale_after,
    defaultHarness: c.default_harness,
    harnesses: board.harnesses,
    harnessProblems: board.harnessProblems,
    models: board.models,
    privateKeys: new Set(board.privateEnv.keys()),
    // Checked every round: a harness fixed while `watch` runs is used from the next round on.
    unstartable: unstartableHarnesses(board.harnesses, programPlace(board, process.env)),
  };
}

/** Where a harness's program and sandbox are judged: this board, with the board's environment. */
export function programPlace(board: LoadedBoard, env: NodeJS.ProcessEnv): ProgramPlace {
  const c = board.config;
  return {
    harnessesDir: c.harnessesDir,
    vault: c.vault,
    boardPath: env.PATH ?? '/usr/bin:/bin',
    sandbox: { vault: c.vault, harnessesDir: c.harnessesDir, configFile: c.configFile, privateEnvFile: c.privateEnvFile, logsDir: c.logsDir, env },
  };
}

/**
 * Read the vault and compute the round's plan. Writes nothing: this is all `dry-run` does. Only
 * `board watch` passes a census cache (see readSnapshot).
 */
export async function planFromVault(ctx: Pick<RoundContext, 'layout' | 'board' | 'now'>, cache?: CensusCache, onSnapshot?: (snapshot: VaultSnapshot) => void): Promise<Plan> {
  // The sandbox probe (a bwrap run) overlaps the census instead of following it.
  const probing = [...ctx.board.harnesses.values()].some((h) => h.sandbox !== 'none') ? startSandboxProbe() : undefined;
  const snapshot = await readSnapshot(ctx.layout, cache);
  await probing;
  onSnapshot?.(snapshot);
  return planRound(snapshot, roundSettings(ctx.board), ctx.now);
}

