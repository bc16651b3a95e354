import fs from 'node:fs';
import type { Harness } from '../schema/harness.js';
import { resolveDeclared, type BoardPlaces } from './declared.js';
import { sandboxMode } from './mode.js';
import { sandboxProbe, type SandboxProbe } from './probe.js';

export interface SandboxPlace extends BoardPlaces {
  /** The board's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Why this harness's workers cannot be confined as it says, or undefined when they can (or run
 * unconfined): the sandbox part of "harness X cannot start" (src/config/program.ts), which makes
 * its cards wait without spending an attempt, and which dry-run, tick, status, lint and `harness
 * check` all show.
 */
export function sandboxStartProblem(harness: Harness, place: SandboxPlace, probe: () => SandboxProbe = sandboxProbe): string | undefined {
  const mode = sandboxMode(harness, place.env);
  if (mode.why === 'slurm' && (harness.sandbox !== undefined || sandboxMode({ sandbox: undefined }, place.env).confined)) {
    return 'a Slurm job runs on another node, where the board cannot build its sandbox: write `sandbox: none` in the harness';
  }
  if (!mode.confined) return undefined;
  const { problems } = resolveDeclared(mode.declared, place, (p) => fs.existsSync(p));
  if (problems.length > 0) return `its ${problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}`;
  const probed = probe();
  return probed.ok ? undefined : `sandbox cannot start: ${probed.reason}`;
}
