import { z } from 'zod';

const row = z.strictObject({
  minimum: z.string().min(1).optional(),
  standard: z.string().min(1).optional(),
  advanced: z.string().min(1).optional(),
});

/** `<harness>: { minimum, standard, advanced }`, optionally with per-modality rows. */
export const harnessModelsSchema = row.extend({
  text: row.optional(),
  audio: row.optional(),
  image: row.optional(),
});

export const modelsSchema = z.record(z.string(), harnessModelsSchema);
export type Models = z.infer<typeof modelsSchema>;
