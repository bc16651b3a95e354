import { z } from 'zod';
import { budgetSchema, durationSchema } from './config.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' });

/**
 * A path a harness's sandbox adds: absolute, or under `{vault}`/`{harnesses}` (substituted when
 * the run is prepared). Whether it exists and is none of the board's own files is judged against
 * the real board (src/sandbox/declared.ts).
 */
const sandboxPath = z
  .string()
  .regex(/^(\/|\{vault\}(\/|$)|\{harnesses\}(\/|$))/, 'an absolute path, or one under {vault}/ or {harnesses}/')
  .refine((p) => !p.split('/').includes('..'), 'no `..` segment: name the folder itself');

/** A host the worker may reach through its run's proxy (CONNECT): `name:port`. */
const sandboxHost = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'a host and port, like example.com:443');

/**
 * The worker's OS sandbox (CONTRACT "Workers are confined"). Omitted: the default confinement.
 * `none`: no sandbox, allowed only written out (lint and status flag it; a Slurm harness must say
 * it, its job runs on another node). An object widens the default by what it declares.
 */
export const harnessSandboxSchema = z.union([
  z.literal('none'),
  z.strictObject({
    /** Extra read-only paths. */
    read: z.array(sandboxPath).default([]),
    /** Extra read-write paths. */
    write: z.array(sandboxPath).default([]),
    /** Extra hosts reached through the run's proxy. */
    hosts: z.array(sandboxHost).default([]),
  }),
]);

export const harnessSchema = z.strictObject({
  description: z.string().optional(),
  command: z.array(z.string()).min(1, 'an argument list with at least the program'),
  prompt_template: z.string().min(1),
  environment: z.record(z.string(), z.string()).default({}),
  environment_from_private: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
  working_directory: z.string().optional(),
  credential_guard: z.string().optional(),
  /**
   * The worker's time budget (`20m`, `2h`): past it the supervisor stops the worker's process
   * group (SIGTERM, SIGKILL 10 s later) and records the run as timed out. Milliseconds once parsed.
   */
  timeout: durationSchema.optional(),
  /** Where the worker runs: a local process (the default) or a Slurm batch job (CONTRACT "Workers on a cluster"). */
  runner: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('local') }),
      z.strictObject({ kind: z.literal('slurm'), args: z.array(z.string()).default([]) }),
    ])
    .optional(),
  sandbox: harnessSandboxSchema.optional(),
  /**
   * How to read a run's cost: JSON paths (`usage.total_tokens`, `total_cost_usd`, `a.b[0].c`) over
   * the last line of the worker's output that is a JSON object. Recorded in the run's manifest.
   */
  cost: z
    .strictObject({
      tokens: z.string().min(1).optional(),
      usd: z.string().min(1).optional(),
    })
    .optional(),
  /**
   * The model endpoint the run's credential proxy serves (src/proxy/endpoint.ts): the variable the
   * worker reads its base URL from, and the upstream the proxy forwards to. Inferred when absent.
   */
  endpoint: z
    .strictObject({
      url_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
      upstream: httpUrl.optional(),
    })
    .optional(),
  /** Spend limit per run, enforced by the credential proxy; a profile's lower limit wins. */
  budget: budgetSchema.optional(),
});

export type Harness = z.infer<typeof harnessSchema>;
export type HarnessCost = NonNullable<Harness['cost']>;
/** A harness's declared widening of its sandbox (the object form of `sandbox`). */
export type SandboxDeclared = Exclude<NonNullable<Harness['sandbox']>, 'none'>;

/** The standard's single `adapters.yml`: a map of harness name to definition. */
export const adaptersSchema = z.record(z.string(), harnessSchema);
