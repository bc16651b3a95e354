/**
 * The value checks the schemas' fast paths share (card-fast-path.ts, profile-fast-path.ts): each
 * gives what zod gives for a value it proves valid, or `undefined`.
 */

export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A copy of a list of strings (non-empty ones if `nonEmpty`; zod's array makes a new one), or `undefined`. */
export function stringList(value: unknown, nonEmpty: boolean): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const copy = new Array<string>(value.length);
  // Indexed, not `every`: a hole is `undefined` to zod, which `every` would skip.
  for (let i = 0; i < value.length; i += 1) {
    const item: unknown = value[i];
    if (typeof item !== 'string' || (nonEmpty && item.length === 0)) return undefined;
    copy[i] = item;
  }
  return copy;
}
