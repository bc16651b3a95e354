import { nonEmptyString, stringList } from './fast-path-values.js';
import { modelCapacity, modelModality, PROFILE_NAME, profileSchema, type Profile } from './profile.js';

/**
 * `profileSchema.safeParse(data).data` for the worker profile nearly every profile is (text
 * fields, descriptor lists, skills), without zod's general machinery: every tick and dry-run
 * validates every profile, and zod's first parses in a fresh process (its checks compiled on
 * first use) were ~25 ms of a census over 500 profiles (issue 20).
 *
 * As card-fast-path.ts does for cards: it returns what zod returns (the same keys in the same
 * order, the same values, new arrays where zod makes them) or `undefined` for anything it does
 * not prove valid, which zod then judges and words. Directors (`profiles`, `failure_policy`),
 * `budget` and `record` always go to zod.
 * test/schema/profile-fast-path.test.ts holds it to zod over generated profiles.
 */
export function profileFastPath(data: Record<string, unknown>): Profile | undefined {
  // A YAML mapping is a plain object; anything else (and a `__proto__` key) is left to zod.
  if (Object.getPrototypeOf(data) !== Object.prototype) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of SHAPE) {
    const present = key in data;
    const value = data[key];
    if (present && (value === undefined || value === null)) return undefined;
    switch (key) {
      case 'name':
        if (typeof value !== 'string' || !PROFILE_NAME.test(value)) return undefined;
        out[key] = value;
        break;
      case 'version':
        if (nonEmptyString(value)) out[key] = value;
        else if (typeof value === 'number' && Number.isFinite(value)) out[key] = String(value);
        else return undefined;
        break;
      case 'description':
      case 'function':
        if (!nonEmptyString(value)) return undefined;
        out[key] = value;
        break;
      case 'handles': {
        const list = descriptorList(value);
        if (list === undefined || list.length === 0) return undefined;
        out[key] = list;
        break;
      }
      case 'refuses': {
        if (!present) break;
        const list = descriptorList(value);
        if (list === undefined) return undefined;
        out[key] = list;
        break;
      }
      case 'guarantees':
      case 'skills': {
        if (!present) break;
        const list = stringList(value, key === 'skills');
        if (list === undefined) return undefined;
        out[key] = list;
        break;
      }
      case 'model_capacity':
      case 'model_modality': {
        // Absent, the schema's default; present, one of its enum's values.
        const choice = present ? value : CHOICES[key].fallback;
        if (typeof choice !== 'string' || !CHOICES[key].values.has(choice)) return undefined;
        out[key] = choice;
        break;
      }
      case 'inputs':
      case 'outputs': {
        if (!present) break;
        const ports = portList(value);
        if (ports === undefined) return undefined;
        out[key] = ports;
        break;
      }
      case 'harness':
        if (!present) break;
        if (!nonEmptyString(value)) return undefined;
        out[key] = value;
        break;
      default:
        // budget, record, profiles, failure_policy: zod's to judge.
        if (present) return undefined;
    }
  }
  // A worker declares skills (the schema's rank rule; a director went to zod above).
  if (out.skills === undefined) return undefined;
  // looseObject: every other key passes through as it is, in the order `for…in` gives.
  for (const key in data) {
    if (KNOWN.has(key)) continue;
    if (key === '__proto__') return undefined;
    out[key] = data[key];
  }
  return out as Profile;
}

/** The two enums' values and defaults, from the schema itself. */
const CHOICES = {
  model_capacity: { values: new Set<string>(modelCapacity.options), fallback: profileSchema.shape.model_capacity.def.defaultValue },
  model_modality: { values: new Set<string>(modelModality.options), fallback: profileSchema.shape.model_modality.def.defaultValue },
};
/** The profile schema's fields in its own order (zod writes them in this order). */
const SHAPE = Object.keys(profileSchema.def.shape);
const KNOWN = new Set(SHAPE);

/** One phrase or a list of phrases, as a new list (zod's array makes a new one), or `undefined`. */
function descriptorList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  return stringList(value, false);
}

/** A port's fields in the schema's order, and what each must be when present. */
const PORT_FIELDS: readonly (readonly [string, 'name' | 'text' | 'flag' | 'any'])[] = [
  ['name', 'name'],
  ['type', 'text'],
  ['transport', 'text'],
  ['wireable', 'flag'],
  ['default', 'any'],
  ['description', 'text'],
];
const PORT_KEYS = new Set(PORT_FIELDS.map(([key]) => key));

/** A copy of a list of ports (`inputs`, `outputs`), each a new object as zod builds it, or `undefined`. */
function portList(value: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const copy = new Array<Record<string, unknown>>(value.length);
  for (let i = 0; i < value.length; i += 1) {
    const item: unknown = value[i];
    if (typeof item !== 'object' || item === null || Object.getPrototypeOf(item) !== Object.prototype) return undefined;
    const port = item as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, rule] of PORT_FIELDS) {
      if (!(key in port)) {
        if (rule === 'name') return undefined;
        continue;
      }
      const field = port[key];
      if (field === undefined) return undefined;
      if (rule === 'name' ? !nonEmptyString(field) : rule === 'text' ? typeof field !== 'string' : rule === 'flag' ? typeof field !== 'boolean' : false) return undefined;
      out[key] = field;
    }
    for (const key in port) {
      if (PORT_KEYS.has(key)) continue;
      if (key === '__proto__') return undefined;
      out[key] = port[key];
    }
    copy[i] = out;
  }
  return copy;
}
