import { isRecord, type Finding, type LintInput } from './types.js';

/**
 * The workers' OS sandbox (CONTRACT "Workers are confined"): a harness whose sandbox cannot start
 * (its cards wait), `sandbox: none` flagged (a warning: allowed, but only knowingly), and a Slurm
 * harness that does not say `sandbox: none` (its job runs on another node, where the board cannot
 * build the sandbox).
 */
export function checkSandboxes(input: LintInput): Finding[] {
  const findings: Finding[] = [];
  for (const doc of input.harnesses) {
    if (doc.sandboxProblem !== undefined) findings.push({ check: 'sandbox', file: doc.file, field: 'sandbox', reason: `harness ${doc.name} cannot start: ${doc.sandboxProblem}` });
    if (!isRecord(doc.data)) continue;
    const slurm = isRecord(doc.data.runner) && doc.data.runner.kind === 'slurm';
    if (doc.data.sandbox === 'none' && !slurm) {
      findings.push({ check: 'sandbox', file: doc.file, field: 'sandbox', severity: 'warning', reason: `harness ${doc.name} runs its workers without the OS sandbox (\`sandbox: none\`): they see everything the board sees` });
    } else if (slurm && doc.data.sandbox !== 'none' && doc.sandboxProblem === undefined) {
      findings.push({ check: 'sandbox', file: doc.file, field: 'sandbox', reason: `harness ${doc.name} runs its workers as Slurm jobs on other nodes, where the board cannot build its sandbox: write \`sandbox: none\`` });
    }
  }
  return findings;
}
