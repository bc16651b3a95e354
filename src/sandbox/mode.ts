import type { Harness, SandboxDeclared } from '../schema/harness.js';

/**
 * Whether a harness's workers run in the OS sandbox, and with what widening. Pure: the harness
 * and the board's environment in, the decision out.
 *
 * An omitted `sandbox` field is the default confinement; only `sandbox: none`, written out in the
 * harness file, runs a worker unconfined (CONTRACT "Workers are confined"): no environment
 * variable or flag turns the sandbox off for a whole board.
 */
export type SandboxMode =
  | { readonly confined: true; readonly declared: SandboxDeclared; readonly why: 'default' | 'declared' }
  | { readonly confined: false; readonly why: 'none' | 'slurm' };


export const NO_WIDENING: SandboxDeclared = { read: [], write: [], hosts: [] };

export function sandboxMode(harness: Pick<Harness, 'sandbox' | 'runner'>, env: Readonly<Record<string, string | undefined>>): SandboxMode {
  if (harness.sandbox === 'none') return { confined: false, why: 'none' };
  // A Slurm job runs on another node: the sandbox is not this host's to build (lint requires `sandbox: none`).
  if (harness.runner?.kind === 'slurm') return { confined: false, why: 'slurm' };
  if (harness.sandbox !== undefined) return { confined: true, declared: harness.sandbox, why: 'declared' };
  void env;
  return { confined: true, declared: NO_WIDENING, why: 'default' };
}

/** Harnesses that write `sandbox: none`, with what `status` says of each. */
export function unconfinedHarnesses(harnesses: ReadonlyMap<string, Pick<Harness, 'sandbox' | 'runner'>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, harness] of harnesses) {
    if (harness.sandbox !== 'none') continue;
    out.set(name, harness.runner?.kind === 'slurm' ? 'sandbox: none (Slurm jobs run on other nodes)' : 'sandbox: none');
  }
  return out;
}
