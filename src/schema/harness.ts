import { z } from 'zod';

export const harnessSchema = z.strictObject({
  description: z.string().optional(),
  command: z.array(z.string()).min(1, 'an argument list with at least the program'),
  prompt_template: z.string().min(1),
  environment: z.record(z.string(), z.string()).default({}),
  environment_from_private: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
  working_directory: z.string().optional(),
  credential_guard: z.string().optional(),
});

export type Harness = z.infer<typeof harnessSchema>;

/** The standard's single `adapters.yml`: a map of harness name to definition. */
export const adaptersSchema = z.record(z.string(), harnessSchema);
