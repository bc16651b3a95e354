const ASCII = /^[\x00-\x7f]*$/;

/**
 * The one normalization every comparison goes through (CONTRACT "Matching"): Unicode NFKD,
 * diacritics dropped, lower-case, every run of non-letters/digits collapsed to one space, trimmed.
 */
export function normalize(text: string): string {
  // Plain ASCII (most requests and descriptors) has nothing to decompose and no marks, and its
  // letters and digits are exactly [a-z0-9] once lower-cased: the same result, several times
  // faster (matching normalizes every card's request every round).
  if (ASCII.test(text)) return text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
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
