/** What `board lint` reports: one finding per problem, named by file, field and reason. */
export type LintCheck = 'schema' | 'fields' | 'rank' | 'ambiguity' | 'skills' | 'harness-guard' | 'models' | 'program' | 'sandbox' | 'flows' | 'private-env';

export interface Finding {
  readonly check: LintCheck;
  readonly file: string;
  readonly field?: string;
  /** The 1-based line in the file, where YAML or the field gives one. */
  readonly line?: number;
  readonly reason: string;
  /** A warning is shown but does not fail lint (a card's unknown field); everything else is an error. */
  readonly severity?: 'warning';
}

/** A YAML document as read: its data, or why it could not be read. */
export interface ReadDoc {
  /** As shown in findings: vault-relative for the vault's files, absolute for the dispatcher's. */
  readonly file: string;
  readonly data?: unknown;
  readonly error?: string;
  /** The line of `error`, when YAML gives one. */
  readonly errorLine?: number;
  /** The file's text, for the line of each field. */
  readonly text?: string;
}

export interface ProfileDoc extends ReadDoc {
  /** The skills folder's entries that hold a SKILL.md. */
  readonly skillsPresent: ReadonlySet<string>;
}

export interface CardDoc extends ReadDoc {
  readonly template: boolean;
}

export interface HarnessDoc extends ReadDoc {
  readonly name: string;
  /** Whether the declared `credential_guard` file exists (undefined when none is declared). */
  readonly guardExists?: boolean;
  /** Why its program cannot be started (not on its PATH, not executable); undefined when it can or the file is invalid. */
  readonly programProblem?: string;
  /** Why its workers' sandbox cannot start (src/sandbox/start-problem.ts); undefined when it can, or they run unconfined. */
  readonly sandboxProblem?: string;
}

/** Everything lint looks at, gathered once by the shell; every check is a pure function of it. */
export interface LintInput {
  readonly profiles: readonly ProfileDoc[];
  readonly cards: readonly CardDoc[];
  readonly harnesses: readonly HarnessDoc[];
  readonly models: ReadDoc;
  readonly defaultHarness: string;
  /** Card names in KANBAN/archive/*: where a flow's child may be (deaf flows). */
  readonly archivedNames?: readonly string[];
  /** The config's `private_env` file and its permission bits, when it names one. */
  readonly privateEnv?: { readonly file: string; readonly mode: number };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
