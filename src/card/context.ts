import { BoardError, EXIT, UsageError } from '../errors.js';
import type { VaultLayout } from '../vault/layout.js';

/**
 * What every `board card` verb runs against: the vault, the clock, the board's `max_attempts`
 * and the environment the dispatcher gave the worker (BOARD_CARD, BOARD_CLAIM …). Nothing in
 * src/card reads `process.env` or the real clock itself.
 */
export interface CardContext {
  readonly layout: VaultLayout;
  readonly now: Date;
  /** From the config when there is one, else 3 (the standard's default). */
  readonly maxAttempts: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where a relative CARD or `--path` argument is resolved from. */
  readonly cwd: string;
}

/** What a verb did, for the CLI to print (text or `--json`). */
export interface CardResult {
  readonly verb: string;
  /** The card's file name. */
  readonly card: string;
  /** The folder the card is in afterwards (`pending`, `in-progress`, `done`, `archive/YYYY-MM`). */
  readonly state: string;
  /** Absolute path of the card afterwards. */
  readonly file: string;
  /** One sentence for a person. */
  readonly message: string;
}

/**
 * A verb refusing: the protocol says no (wrong state, stale claim, missing path …). Exit 1, and
 * nothing was written.
 */
export class CardRefused extends BoardError {
  constructor(message: string) {
    super(message, EXIT.failure);
  }
}

export function refuse(message: string): never {
  throw new CardRefused(message);
}

export function usage(message: string): never {
  throw new UsageError(message);
}

/** The Record's actor: the profile working the card when a worker runs the verb, else the human. */
export function actorFor(ctx: CardContext, agent: string | null | undefined): string {
  if (ctx.env.BOARD_CARD || ctx.env.BOARD_CLAIM) return agent ?? 'worker';
  return 'human';
}
