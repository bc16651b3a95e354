import { checkAmbiguity } from './ambiguity.js';
import { checkUnknownFields } from './fields.js';
import { checkFlows } from './flows.js';
import { checkHarnessGuards } from './harness-guard.js';
import { checkModels } from './models.js';
import { checkPrivateEnv } from './private-env.js';
import { checkPrograms } from './program.js';
import { checkRank } from './rank.js';
import { checkSandboxes } from './sandbox.js';
import { checkSchemas } from './schema.js';
import { checkSkills } from './skills.js';
import type { Finding, LintInput } from './types.js';

export type { Finding, LintCheck, LintInput } from './types.js';

/** Every design-time check, in a stable order: by file, then field, then check. */
export function lint(input: LintInput): Finding[] {
  const findings = [
    ...checkSchemas(input),
    ...checkUnknownFields(input),
    ...checkRank(input),
    ...checkAmbiguity(input),
    ...checkSkills(input),
    ...checkHarnessGuards(input),
    ...checkPrograms(input),
    ...checkSandboxes(input),
    ...checkModels(input),
    ...checkFlows(input),
    ...checkPrivateEnv(input),
  ];
  const key = (f: Finding) => `${f.file}\u0000${f.field ?? ''}\u0000${f.check}\u0000${f.reason}`;
  return findings.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
