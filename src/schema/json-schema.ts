import { z } from 'zod';
import { cardSchema, scheduledTemplateSchema } from './card.js';
import { configSchema } from './config.js';
import { adaptersSchema, harnessSchema } from './harness.js';
import { modelsSchema } from './models.js';
import { profileSchema } from './profile.js';

/**
 * The JSON Schemas in `profiles-schema/`, generated from the zod schemas (the single source) so an
 * editor can validate a profile, a card or a harness as it is typed. The input side is described
 * (`io: 'input'`): what a person writes, before defaults and transforms.
 */
const SOURCES = {
  profile: { schema: profileSchema, title: 'Atomic Agents profile (PROFILE.md front matter)' },
  card: { schema: cardSchema, title: 'Atomic Agents card (front matter)' },
  'scheduled-template': { schema: scheduledTemplateSchema, title: 'Atomic Agents scheduled template (KANBAN/scheduled/*.md front matter)' },
  harness: { schema: harnessSchema, title: 'atomic-board harness (harnesses/<name>.yml)' },
  adapters: { schema: adaptersSchema, title: "atomic-board adapters file (the standard's adapters.yml)" },
  models: { schema: modelsSchema, title: 'atomic-board models table (models.yml)' },
  config: { schema: configSchema, title: 'atomic-board config (board.yml)' },
} as const;

/**
 * Rank as a discriminated union, which a zod refinement cannot export: a worker has `skills` and
 * neither director field; a director has `profiles` and `failure_policy` and no `skills`.
 */
const RANK_UNION = {
  oneOf: [
    { title: 'worker', required: ['skills'], not: { anyOf: [{ required: ['profiles'] }, { required: ['failure_policy'] }] } },
    { title: 'director', required: ['profiles', 'failure_policy'], not: { required: ['skills'] } },
  ],
};

/** File name → JSON Schema document, in a stable order. */
export function jsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, { schema, title }] of Object.entries(SOURCES)) {
    const generated = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const { $schema, ...rest } = generated;
    out[`${name}.schema.json`] = {
      $schema,
      title,
      ...rest,
      ...(name === 'profile' ? RANK_UNION : {}),
    };
  }
  return out;
}

/** The exact bytes written for each file: two-space JSON and a final newline. */
export function renderJsonSchemas(): Record<string, string> {
  return Object.fromEntries(Object.entries(jsonSchemas()).map(([file, doc]) => [file, `${JSON.stringify(doc, null, 2)}\n`]));
}
