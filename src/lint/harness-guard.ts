import { isRecord, type Finding, type LintInput } from './types.js';

/**
 * The standard's lock rule: every harness wires the credential-blocking hook through its own
 * mechanism. A harness must declare `credential_guard`, and the file must exist.
 */
export function checkHarnessGuards(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.harnesses) {
    if (!isRecord(doc.data)) continue;
    const guard = doc.data.credential_guard;
    if (typeof guard !== 'string' || guard.trim() === '') {
      findings.push({ check: 'harness-guard', file: doc.file, field: 'credential_guard', reason: `harness "${doc.name}" declares no credential-blocking hook (the lock rule: every harness wires one)` });
    } else if (doc.guardExists === false) {
      findings.push({ check: 'harness-guard', file: doc.file, field: 'credential_guard', reason: `harness "${doc.name}" names the hook ${guard}, which does not exist (relative to the harnesses folder)` });
    }
  }
  return findings;
}
