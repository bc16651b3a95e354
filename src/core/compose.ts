import type { Harness } from '../schema/harness.js';
import { forTerminal, hasControlCharacter } from '../format/control.js';

/**
 * The worker's command, composed from its harness. Pure: the shell passes the private values in
 * and gets back exactly what it spawns. No shell is ever involved: `command` is an argument list
 * and substitution happens inside each element.
 */

export interface ComposeInput {
  readonly harness: Harness;
  readonly model: string;
  /** Absolute paths. */
  readonly profile: string;
  readonly card: string;
  readonly vault: string;
  readonly privateEnv: ReadonlyMap<string, string>;
  /** Extra variables the board hands every worker (BOARD_CARD, BOARD_CLAIM …). */
  readonly boardEnv: Readonly<Record<string, string>>;
  /** Used only when the harness sets no PATH of its own. */
  readonly fallbackPath: string;
  /** Resolves a relative working_directory. */
  readonly resolveDir: (dir: string) => string;
  /** Absolute path of the harnesses folder: `{harnesses}` in `command` elements (wrapper scripts shipped there); `{vault}` is `vault`. */
  readonly harnessesDir?: string;
}

export interface ComposedCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly prompt: string;
  /** Names of env variables whose values are private: never logged. */
  readonly privateNames: readonly string[];
  /**
   * The runner opens fd 3 as a pipe for the program's start report (the sandbox's init says there
   * when the worker itself could not be executed: src/sandbox/init.ts).
   */
  readonly statusPipe?: boolean;
}

export type ComposeResult = { ok: true; command: ComposedCommand } | { ok: false; reason: string };

/** Single-pass substitution: text substituted in is never scanned again. */
export function substitute(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

export function composeCommand(input: ComposeInput): ComposeResult {
  const { harness } = input;
  const missing = harness.environment_from_private.filter((k) => !input.privateEnv.has(k));
  if (missing.length > 0) {
    return { ok: false, reason: `private env file lacks ${missing.join(', ')} (environment_from_private)` };
  }
  // The prompt is the board's trusted text: a path holding a line break or another control
  // character would forge lines of it. The census declares such card names; this refuses the rest.
  for (const [what, value] of [['card', input.card], ['profile', input.profile], ['vault', input.vault]] as const) {
    if (hasControlCharacter(value)) return { ok: false, reason: `the ${what} path holds a control character (${forTerminal(value)}): it is never put into a prompt` };
  }
  const prompt = substitute(harness.prompt_template, { profile: input.profile, card: input.card, vault: input.vault });
  // `{vault}` as in `prompt_template` and `working_directory`: a script kept in the vault.
  const values: Record<string, string> = { prompt, model: input.model, vault: input.vault };
  if (input.harnessesDir !== undefined) values.harnesses = input.harnessesDir;
  const argv = harness.command.map((element) => substitute(element, values));
  const env: Record<string, string> = { ...harness.environment };
  if (env.PATH === undefined) env.PATH = input.fallbackPath;
  for (const key of harness.environment_from_private) env[key] = input.privateEnv.get(key)!;
  Object.assign(env, input.boardEnv);
  const dir = harness.working_directory === undefined ? input.vault : substitute(harness.working_directory, { vault: input.vault });
  return {
    ok: true,
    command: {
      file: argv[0]!,
      args: argv.slice(1),
      env,
      cwd: input.resolveDir(dir),
      prompt,
      privateNames: [...harness.environment_from_private],
    },
  };
}
