import { isRecord, type Finding, type LintInput } from './types.js';

export const RANK_FIELDS = ['skills', 'profiles', 'failure_policy'];

/**
 * Rank as a discriminated union: `skills` makes a worker, `profiles` + `failure_policy` a
 * director, never both, never neither; and no `rank:` field, which would only contradict the list.
 */
export function checkRank(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.profiles) {
    if (!isRecord(doc.data)) continue;
    const d = doc.data;
    const has = (k: string) => d[k] !== undefined && d[k] !== null;
    const worker = has('skills');
    const director = has('profiles') || has('failure_policy');
    const add = (field: string, reason: string) => findings.push({ check: 'rank', file: doc.file, field, reason });
    if (has('rank')) add('rank', 'there is no `rank:` field: rank follows from the lists (skills → worker; profiles + failure_policy → director)');
    if (worker && director) {
      const directorFields = ['profiles', 'failure_policy'].filter(has).join(' and ');
      add('skills', `both a worker (skills) and a director (${directorFields}): a profile is one or the other, never both`);
    } else if (!worker && !director) {
      add('skills', 'neither a worker nor a director: a worker declares skills; a director declares profiles and failure_policy');
    } else if (director && !has('profiles')) {
      add('profiles', 'a director declares the profiles it chains, beside its failure_policy');
    } else if (director && !has('failure_policy')) {
      add('failure_policy', 'a director declares a failure_policy, beside its profiles');
    }
  }
  return findings;
}
