/** What `board lint` reports: one finding per problem, named by file, field and reason. */
export type LintCheck = 'schema' | 'rank' | 'ambiguity' | 'skills' | 'harness-guard' | 'models';

export interface Finding {
  readonly check: LintCheck;
  readonly file: string;
  readonly field?: string;
  readonly reason: string;
}

/** A YAML document as read: its data, or why it could not be read. */
export interface ReadDoc {
  /** As shown in findings: vault-relative for the vault's files, absolute for the dispatcher's. */
  readonly file: string;
  readonly data?: unknown;
  readonly error?: string;
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
}

/** Everything lint looks at, gathered once by the shell; every check is a pure function of it. */
export interface LintInput {
  readonly profiles: readonly ProfileDoc[];
  readonly cards: readonly CardDoc[];
  readonly harnesses: readonly HarnessDoc[];
  readonly models: ReadDoc;
  readonly defaultHarness: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
