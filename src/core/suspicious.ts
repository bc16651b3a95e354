import { normalize, occursIn } from './normalize.js';

/**
 * "The card asks, it does not command." A card whose request asks to bypass the profile, its
 * guarantees or the system's rules is blocked as suspicious, without doing any work. Matching is
 * the same deterministic comparison as everywhere else (normalized phrase on word boundaries in
 * the normalized request): no model, no judgment, a short list anyone can read and extend.
 *
 * Each entry: the phrase, and what it asks for (used in the block reason).
 */
export const SUSPICIOUS_PHRASES: readonly { readonly phrase: string; readonly asks: string }[] = [
  { phrase: 'ignore your profile', asks: 'override its profile' },
  { phrase: 'ignore the profile', asks: 'override its profile' },
  { phrase: 'disregard your profile', asks: 'override its profile' },
  { phrase: 'disregard the profile', asks: 'override its profile' },
  { phrase: 'override the profile', asks: 'override its profile' },
  { phrase: 'override your profile', asks: 'override its profile' },
  { phrase: 'ignore previous instructions', asks: 'override its instructions' },
  { phrase: 'ignore all previous instructions', asks: 'override its instructions' },
  { phrase: 'ignore your instructions', asks: 'override its instructions' },
  { phrase: 'disregard previous instructions', asks: 'override its instructions' },
  { phrase: 'bypass guarantees', asks: 'bypass its guarantees' },
  { phrase: 'bypass the guarantees', asks: 'bypass its guarantees' },
  { phrase: 'bypass your guarantees', asks: 'bypass its guarantees' },
  { phrase: 'ignore your guarantees', asks: 'bypass its guarantees' },
  { phrase: 'ignore the guarantees', asks: 'bypass its guarantees' },
  { phrase: 'override the rules', asks: "override the system's rules" },
  { phrase: 'override your rules', asks: "override the system's rules" },
  { phrase: 'ignore the rules', asks: "override the system's rules" },
  { phrase: 'ignore your rules', asks: "override the system's rules" },
  { phrase: 'bypass the rules', asks: "override the system's rules" },
  { phrase: 'without restrictions', asks: 'work without its restrictions' },
  { phrase: 'without any restrictions', asks: 'work without its restrictions' },
  { phrase: 'disable the credential guard', asks: 'disable the credential guard' },
];

const NORMALIZED = SUSPICIOUS_PHRASES.map((p) => ({ ...p, normalized: normalize(p.phrase) }));
/** The phrases' first words: a request holding none of them (most) holds no phrase. */
const FIRST_WORDS = [...new Set(NORMALIZED.map((p) => p.normalized.split(' ')[0]!))];

/** The first listed phrase the request contains, or undefined. */
export function suspiciousPhrase(request: string, normalizedRequest = normalize(request)): { phrase: string; asks: string } | undefined {
  const text = normalizedRequest;
  if (!FIRST_WORDS.some((word) => occursIn(word, text))) return undefined;
  const hit = NORMALIZED.find((p) => occursIn(p.normalized, text));
  return hit ? { phrase: hit.phrase, asks: hit.asks } : undefined;
}

/** The census's block reason for a suspicious request, or undefined for an ordinary one. */
export function suspiciousReason(request: string, normalizedRequest?: string): string | undefined {
  const hit = suspiciousPhrase(request, normalizedRequest);
  return hit ? `suspicious: the card asks to ${hit.asks} ("${hit.phrase}"); the card asks, it does not command` : undefined;
}
