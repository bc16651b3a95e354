import { normalize } from '../core/normalize.js';
import { TIMESTAMP, cardSchema, type Card } from './card.js';
import { nonEmptyString, stringList } from './fast-path-values.js';

/**
 * `cardSchema.safeParse(data).data` for the card nearly every card is (plain strings, a list of
 * paths, a whole `attempts`), without zod's general machinery: a census validates every card on
 * the board each round, and zod's per-field bookkeeping was its largest single cost (issue 20).
 *
 * It returns what zod returns (the same keys in the same order, the same values, new arrays and a
 * new `inputs` object where zod makes them) or `undefined` for anything it does not prove valid;
 * the caller then asks zod itself, which also words the errors. So a card this declines is judged
 * exactly as before, and `cardSchema` stays the one definition of a card.
 * test/schema/card-fast-path.test.ts holds it to zod over generated cards.
 */
export function cardFastPath(data: Record<string, unknown>): Card | undefined {
  // A YAML mapping is a plain object; anything else (and a `__proto__` key, which zod strips) is
  // left to zod.
  if (Object.getPrototypeOf(data) !== Object.prototype) return undefined;
  const out: Record<string, unknown> = {};
  for (const field of SHAPE) {
    const present = field.key in data;
    const value = data[field.key];
    switch (field.kind) {
      case 'required':
        if (!nonEmptyString(value)) return undefined;
        out[field.key] = value;
        break;
      case 'created':
        if (typeof value !== 'string' || !TIMESTAMP.test(value)) return undefined;
        out[field.key] = value;
        break;
      case 'paths': {
        if (value === undefined || value === null) out[field.key] = [];
        else {
          const paths = stringList(value, true);
          if (paths === undefined) return undefined;
          out[field.key] = paths;
        }
        break;
      }
      case 'attempts':
        if (value === undefined || value === null) out[field.key] = 0;
        else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) out[field.key] = value;
        else return undefined;
        break;
      default: {
        if (!present) break;
        if (value === undefined || value === null) {
          out[field.key] = value;
          break;
        }
        const valid = optionalValue(field.kind, value);
        if (valid === undefined) return undefined;
        out[field.key] = valid;
      }
    }
  }
  // looseObject: every other key passes through as it is, in the order `for…in` gives.
  for (const key in data) {
    if (KNOWN.has(key)) continue;
    if (key === '__proto__') return undefined;
    out[key] = data[key];
  }
  return out as Card;
}

type Kind = 'required' | 'created' | 'paths' | 'attempts' | 'priority' | 'inputs' | 'path' | 'text' | 'blocked';

/** The card schema's fields in its own order (zod writes them in this order), each with its rule. */
const KINDS: Record<keyof typeof cardSchema.shape, Kind> = {
  function: 'required',
  request: 'required',
  created: 'created',
  origin: 'required',
  paths: 'paths',
  attempts: 'attempts',
  priority: 'priority',
  inputs: 'inputs',
  destination: 'path',
  recipient: 'text',
  push_reason: 'text',
  flow: 'text',
  director: 'text',
  agent: 'text',
  claimed: 'text',
  model: 'text',
  closed: 'text',
  blocked: 'blocked',
};
const SHAPE = Object.keys(cardSchema.shape).map((key) => ({ key, kind: KINDS[key as keyof typeof KINDS] }));
const KNOWN = new Set(SHAPE.map((f) => f.key));

/** A present, non-null value of an optional field as zod outputs it, or `undefined` if not proved valid. */
function optionalValue(kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'priority': {
      if (typeof value !== 'string') return undefined;
      const level = normalize(value);
      return level === 'normal' || level === 'urgent' ? level : undefined;
    }
    case 'inputs':
      return inputSlots(value);
    case 'path':
      return nonEmptyString(value) ? value : undefined;
    case 'text':
      return typeof value === 'string' ? value : undefined;
    case 'blocked':
      return typeof value === 'string' || value === false ? value : undefined;
    default:
      return undefined;
  }
}

/** A copy of `inputs` (slot → path or paths), as zod's record builds it, or `undefined`. */
function inputSlots(value: unknown): Record<string, string | string[]> | undefined {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const slots: Record<string, string | string[]> = {};
  const record = value as Record<string, unknown>;
  for (const slot of Object.keys(record)) {
    if (slot === '__proto__') return undefined;
    const paths = record[slot];
    if (nonEmptyString(paths)) slots[slot] = paths;
    else {
      const list = stringList(paths, true);
      if (list === undefined) return undefined;
      slots[slot] = list;
    }
  }
  return slots;
}
