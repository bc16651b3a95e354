import { unknownFields } from '../core/unknown-fields.js';
import type { Finding, LintInput } from './types.js';

/**
 * Fields the standard does not know. A profile's is an error (a typo of `refuses` loses a
 * refusal); a card's or a template's near miss of a known field is a warning (the standard
 * allows a card extra fields). Config and harness files are strict schemas: the schema check
 * reports theirs, with the same "did you mean".
 */
export function checkUnknownFields(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.profiles) {
    if (doc.error === undefined) for (const p of unknownFields(doc.file, doc.data, 'profile', doc.text)) findings.push({ check: 'fields', ...p });
  }
  for (const doc of input.cards) {
    if (doc.error !== undefined) continue;
    for (const p of unknownFields(doc.file, doc.data, doc.template ? 'template' : 'card', doc.text)) findings.push({ check: 'fields', ...p, severity: 'warning' });
  }
  return findings;
}
