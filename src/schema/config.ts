import { z } from 'zod';

export const DURATION = /^(\d+)(s|m|h|d)$/;

export const durationSchema = z
  .string()
  .regex(DURATION, 'a duration like 90m, 2h or 1d')
  .transform((text) => {
    const [, amount, unit] = DURATION.exec(text)!;
    const factor = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 's' | 'm' | 'h' | 'd'];
    return Number(amount) * factor;
  });

/** Spend limits per run (harness or profile) or per day (board.yml): tokens (input + output) and USD. */
export const budgetSchema = z.strictObject({
  tokens: z.number().int().positive().optional(),
  usd: z.number().positive().optional(),
});

export type Budget = z.infer<typeof budgetSchema>;

export const configSchema = z.strictObject({
  vault: z.string().min(1),
  harnesses: z.string().min(1).default('harnesses'),
  adapters: z.string().min(1).optional(),
  models: z.string().min(1).default('models.yml'),
  default_harness: z.string().min(1),
  trusted_origins: z.array(z.string().min(1)).default(['human', 'scheduler']),
  max_attempts: z.number().int().min(1).default(3),
  max_dispatches_per_round: z.number().int().min(0).default(5),
  zombie_after: durationSchema.default(2 * 3_600_000),
  // A claim whose supervisor's lease (its run record's mtime, refreshed every 10 s) is older than this is reclaimed, on any host.
  lease_stale_after: durationSchema.default(60_000),
  private_env: z.string().min(1).optional(),
  logs: z.string().min(1).default('logs'),
  /** Spend limit across all runs of a local day, enforced by every run's credential proxy. */
  daily_budget: budgetSchema.optional(),
});

export type ConfigFile = z.infer<typeof configSchema>;
