import type { Harness, SandboxDeclared } from '../schema/harness.js';

/**
 * Whether a harness's workers run in the OS sandbox, and with what widening. Pure: the harness
 * and the board's environment in, the decision out.
 *
 * Until the verbs channel lands (a worker's `board card` verbs carried out by its supervisor,
 * DESIGN-18), an omitted `sandbox` field confines the worker only when BOARD_SANDBOX_DEFAULT=on:
 * inside the sandbox KANBAN/ is read-only, so verbs run in the worker itself would fail. A harness
 * that declares `sandbox: { … }` is confined in any case. Flipping the default is
 * `SANDBOX_BY_DEFAULT` below.
 */
export type SandboxMode =
  | { readonly confined: true; readonly declared: SandboxDeclared; readonly why: 'default' | 'declared' }
  | { readonly confined: false; readonly why: 'none' | 'slurm' | 'default-off' };

export const SANDBOX_DEFAULT_VAR = 'BOARD_SANDBOX_DEFAULT';

/** The default confinement applies to a harness that omits `sandbox`. */
export function sandboxByDefault(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[SANDBOX_DEFAULT_VAR] === 'on';
}

export const NO_WIDENING: SandboxDeclared = { read: [], write: [], hosts: [] };

export function sandboxMode(harness: Pick<Harness, 'sandbox' | 'runner'>, env: Readonly<Record<string, string | undefined>>): SandboxMode {
  if (harness.sandbox === 'none') return { confined: false, why: 'none' };
  // A Slurm job runs on another node: the sandbox is not this host's to build (lint requires `sandbox: none`).
  if (harness.runner?.kind === 'slurm') return { confined: false, why: 'slurm' };
  if (harness.sandbox !== undefined) return { confined: true, declared: harness.sandbox, why: 'declared' };
  return sandboxByDefault(env) ? { confined: true, declared: NO_WIDENING, why: 'default' } : { confined: false, why: 'default-off' };
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
