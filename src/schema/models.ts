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

export type HarnessModels = z.infer<typeof harnessModelsSchema>;
export type Models = Record<string, HarnessModels>;

/**
 * `prices: { <model id>: { input, output, cached_input? } }`, USD per million tokens, read by the
 * credential proxy to put a price on each metered response (cached input defaults to `input`).
 */
export const pricesSchema = z.record(
  z.string().min(1),
  z.strictObject({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
  }),
);

export type Prices = z.infer<typeof pricesSchema>;
export type Price = Prices[string];

/** The file: harness rows, and the one reserved key `prices` (so no harness may be named that). */
const modelsFileSchema = z.object({ prices: pricesSchema.optional() }).catchall(harnessModelsSchema);

/** The harness rows of models.yml (its `prices` left out). */
export const modelsSchema = modelsFileSchema.transform(({ prices: _prices, ...rows }): Models => rows);

/** The price table of models.yml (empty when it has none). */
export const modelPricesSchema = modelsFileSchema.transform((file): Prices => file.prices ?? {});
