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
  const d = normalizedDescriptor;
  const r = normalizedRequest;
  if (d === '') return false;
  // Same as ` ${r} `.includes(` ${d} `), without building two strings per comparison: matching
  // runs cards × descriptors times a round.
  for (let i = r.indexOf(d); i !== -1; i = r.indexOf(d, i + 1)) {
    const end = i + d.length;
    if ((i === 0 || r.charCodeAt(i - 1) === 32) && (end === r.length || r.charCodeAt(end) === 32)) return true;
  }
  return false;
}
