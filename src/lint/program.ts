import type { Finding, LintInput } from './types.js';

/** A harness whose program cannot be started: every card it would get waits (see core/plan.ts). */
export function checkPrograms(input: LintInput): Finding[] {
  return input.harnesses
    .filter((h) => h.programProblem !== undefined)
    .map((h) => ({ check: 'program' as const, file: h.file, field: 'command', reason: `harness ${h.name} cannot start: ${h.programProblem!}` }));
}
