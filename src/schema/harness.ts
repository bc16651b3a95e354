import { z } from 'zod';
import { budgetSchema, durationSchema } from './config.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' });

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

/** The standard's single `adapters.yml`: a map of harness name to definition. */
export const adaptersSchema = z.record(z.string(), harnessSchema);
