import { pickModel } from '../core/models.js';
import { modelCapacity, modelModality } from '../schema/profile.js';
import { modelsSchema } from '../schema/models.js';
import { isRecord, type Finding, type LintInput } from './types.js';

/**
 * The models table can serve every profile: for each profile, its harness (or the default) ×
 * `model_capacity` × `model_modality` has a model, and every harness row names an installed harness.
 */
export function checkModels(input: LintInput): Finding[] {
  const parsed = modelsSchema.safeParse(input.models.data);
  if (input.models.error !== undefined || !parsed.success) return []; // the schema check reports it
  const models = parsed.data;
  const installed = new Set(input.harnesses.map((h) => h.name));
  const findings: Finding[] = [];
  for (const harness of Object.keys(models)) {
    if (!installed.has(harness)) findings.push({ check: 'models', file: input.models.file, field: harness, reason: `a row for harness "${harness}", which is not installed` });
  }
  for (const doc of input.profiles) {
    if (!isRecord(doc.data) || typeof doc.data.name !== 'string') continue;
    const harness = typeof doc.data.harness === 'string' ? doc.data.harness : input.defaultHarness;
    const capacity = modelCapacity.safeParse(doc.data.model_capacity ?? 'standard');
    const modality = modelModality.safeParse(doc.data.model_modality ?? 'text');
    if (!capacity.success || !modality.success) continue; // the schema check reports it
    if (!installed.has(harness)) {
      findings.push({ check: 'models', file: doc.file, field: 'harness', reason: `harness "${harness}" is not installed: its cards would wait forever` });
      continue;
    }
    const choice = pickModel(models, harness, capacity.data, modality.data);
    if (!choice.ok) findings.push({ check: 'models', file: doc.file, field: 'model_capacity', reason: `${choice.reason}: its cards would wait forever` });
  }
  return findings;
}
