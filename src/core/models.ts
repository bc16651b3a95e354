import type { Models } from '../schema/models.js';

export type ModelChoice = { ok: true; model: string } | { ok: false; reason: string };

/** The concrete model for a profile's declared level on a harness: capacity × modality × harness. */
export function pickModel(models: Models, harness: string, capacity: string, modality: string): ModelChoice {
  const table = models[harness];
  if (!table) return { ok: false, reason: `models.yml has no row for harness "${harness}"` };
  const row = modality === 'text' ? (table.text ?? table) : table[modality as 'audio' | 'image'];
  const model = row?.[capacity as 'minimum' | 'standard' | 'advanced'];
  if (!model) {
    return { ok: false, reason: `models.yml has no ${modality} model of capacity "${capacity}" for harness "${harness}"` };
  }
  return { ok: true, model };
}
