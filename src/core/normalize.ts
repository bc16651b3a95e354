/**
 * The one normalization every comparison goes through (CONTRACT "Matching"): Unicode NFKD,
 * diacritics dropped, lower-case, every run of non-letters/digits collapsed to one space, trimmed.
 */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether a descriptor occurs in a request on word boundaries, both already normalized. */
export function occursIn(normalizedDescriptor: string, normalizedRequest: string): boolean {
  if (normalizedDescriptor === '') return false;
  return ` ${normalizedRequest} `.includes(` ${normalizedDescriptor} `);
}
