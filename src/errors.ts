import type { ZodError } from 'zod';
import type { FileProblem } from './core/types.js';

/** Errors that end a command, each with its exit code. Mapped to `process.exitCode` in cli.ts only. */

export class BoardError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad usage or bad configuration: exit 2. */
export class UsageError extends BoardError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

export class ConfigError extends BoardError {
  constructor(
    readonly problems: readonly FileProblem[],
  ) {
    super(problems.map(formatProblem).join('\n'), EXIT.usage);
  }
}

/** The round could not run (vault unreadable, lock broken …): exit 1. */
export class RoundError extends BoardError {
  constructor(message: string) {
    super(message, EXIT.failure);
  }
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export function formatProblem(p: FileProblem): string {
  return `${p.file}${p.field ? `: ${p.field}` : ''}: ${p.reason}`;
}

/** zod issues as file/field/reason problems. */
export function zodProblems(file: string, error: ZodError): FileProblem[] {
  return error.issues.map((issue) => ({
    file,
    ...(issue.path.length > 0 ? { field: issue.path.join('.') } : {}),
    reason: issue.message,
  }));
}
