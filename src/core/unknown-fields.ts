import { closestField, fieldLine, knownFields, unknownFieldSentence, type DocKind } from '../messages.js';
import type { FileProblem } from './types.js';

/**
 * Fields a file holds that the standard does not know. For a profile every one is reported (the
 * standard lists a profile's fields; `refuse:` for `refuses:` silently loses a refusal). For a
 * card only a near miss of a known field is (the standard allows a card extra fields, but
 * `priorty:` must not pass in silence). Pure: data in, problems out.
 */
export function unknownFields(file: string, data: unknown, kind: DocKind, text?: string): FileProblem[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const known = knownFields(kind);
  const problems: FileProblem[] = [];
  for (const key of Object.keys(data)) {
    if (known.includes(key)) continue;
    const suggestion = closestField(key, known);
    if (kind !== 'profile' && suggestion === undefined) continue;
    const line = text !== undefined ? fieldLine(text, key) : undefined;
    problems.push({ file, field: key, ...(line !== undefined ? { line } : {}), reason: unknownFieldSentence(kind, key, suggestion) });
  }
  return problems;
}
