/**
 * A value spelled out for comparison: keys in order, `undefined` kept, holes and `-0` named, each
 * object's prototype noted. What "the same output" means when a fast path is held to zod.
 */
export function exact(value: unknown): unknown {
  if (Array.isArray(value)) return { array: Array.from({ length: value.length }, (_, i) => (i in value ? exact(value[i]) : '<hole>')) };
  if (typeof value === 'object' && value !== null) {
    const proto = Object.getPrototypeOf(value) === Object.prototype ? 'Object' : Object.getPrototypeOf(value) === null ? 'null' : 'other';
    return { object: Object.keys(value).map((k) => [k, exact((value as Record<string, unknown>)[k])]), proto };
  }
  if (value === undefined) return '<undefined>';
  if (typeof value === 'number' && Object.is(value, -0)) return '<-0>';
  return value;
}
