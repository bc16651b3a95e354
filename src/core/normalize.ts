const ASCII = /^[\x00-\x7f]*$/;

/**
 * The one normalization every comparison goes through (CONTRACT "Matching"): Unicode NFKD,
 * diacritics dropped, lower-case, every run of non-letters/digits collapsed to one space, trimmed.
 */
export function normalize(text: string): string {
  // Plain ASCII (most requests and descriptors) has nothing to decompose and no marks, and its
  // letters and digits are exactly [a-z0-9] once lower-cased: the same result, several times
  // faster (matching normalizes every card's request every round).
  if (ASCII.test(text)) return asciiWords(text.toLowerCase());
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Lower-cased ASCII text's runs of [a-z0-9], joined by single spaces: what
 * `.replace(/[^a-z0-9]+/g, ' ').trim()` gives, in one pass and without the regular expression
 * (a census normalizes every card's request: ~2 µs a request less).
 */
function asciiWords(lower: string): string {
  let out = '';
  let i = 0;
  while (i < lower.length) {
    if (!isWordCode(lower.charCodeAt(i))) {
      i += 1;
      continue;
    }
    let end = i + 1;
    while (end < lower.length && isWordCode(lower.charCodeAt(end))) end += 1;
    out = out === '' ? lower.slice(i, end) : `${out} ${lower.slice(i, end)}`;
    i = end;
  }
  return out;
}

function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
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
