import type { ZodError } from 'zod';
import type { FileProblem } from './core/types.js';
import { closestField, fieldLine, issueSentence, kindOf, knownFields, unknownFieldSentence, type DocKind } from './messages.js';

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

/**
 * `file (line N): sentence`. A sentence that names its field already (every schema sentence does)
 * is not prefixed with the field a second time.
 */
export function formatProblem(p: FileProblem): string {
  // A YAML error's place may come as the field "line N" (the census's form): shown as a line.
  const fieldLine = p.field !== undefined ? /^line (\d+)$/.exec(p.field) : null;
  const line = p.line ?? (fieldLine ? Number(fieldLine[1]) : undefined);
  const field = fieldLine ? undefined : p.field;
  const where = `${p.file}${line !== undefined ? ` (line ${line})` : ''}`;
  const named = field !== undefined && p.reason.includes(`\`${field}\``);
  return `${where}${field && !named ? `: ${field}` : ''}: ${p.reason}`;
}

export interface ZodProblemContext {
  /** What the file is; guessed from its name when not given (PROFILE.md, scheduled/, *.md). */
  readonly kind?: DocKind;
  /** The file's text, for the line of each field. */
  readonly text?: string;
}

/** zod issues as file/field/reason problems, each reason a sentence from the one table (messages.ts). */
export function zodProblems(file: string, error: Pick<ZodError, 'issues'>, context: ZodProblemContext = {}): FileProblem[] {
  const kind = context.kind ?? kindOf(file);
  const lineOf = (field: string) => {
    const line = context.text !== undefined ? fieldLine(context.text, field) : undefined;
    return line !== undefined ? { line } : {};
  };
  return error.issues.flatMap((issue): FileProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      // One problem per unknown key, each with its own "did you mean".
      return issue.keys.map((key) => {
        const field = [...issue.path.map(String), key].join('.');
        return { file, field, ...lineOf(field), reason: unknownFieldSentence(kind ?? 'config', field, kind ? closestField(key, knownFields(kind)) : undefined) };
      });
    }
    const field = issue.path.map(String).join('.');
    let reason = issueSentence(kind, issue);
    // A required field next to a near miss of it (`handle:` for `handles:`) is one typo: say so.
    const typo = kind && context.text !== undefined && / is required/.test(reason) ? typoOf(context.text, field, kind) : undefined;
    if (typo) reason += ` (\`${typo.key}\` on line ${typo.line} looks like a typo of it)`;
    return [{ file, ...(field !== '' ? { field, ...lineOf(field) } : {}), reason }];
  });
}

/** A top-level key of `text` that is not a known field but is closest to `field`, with its line. */
function typoOf(text: string, field: string, kind: DocKind): { key: string; line: number } | undefined {
  const known = knownFields(kind);
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const key = /^([A-Za-z_][\w-]*)[ \t]*:/.exec(lines[i]!)?.[1];
    if (key !== undefined && key !== field && !known.includes(key) && closestField(key, known) === field) return { key, line: i + 1 };
  }
  return undefined;
}
