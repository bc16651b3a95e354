import fs from 'node:fs/promises';
import path from 'node:path';
import { archiveCards, type ArchiveResult } from '../card/archive.js';
import { blockCard } from '../card/block.js';
import { cancelCard } from '../card/cancel.js';
import { closeCard } from '../card/close.js';
import type { CardContext, CardResult } from '../card/context.js';
import { failCard } from '../card/fail.js';
import { newCard, type NewCardArgs } from '../card/new.js';
import { noteCard } from '../card/note.js';
import { unblockCard } from '../card/unblock.js';
import { yieldCard } from '../card/yield.js';
import { rewireCard } from '../card/rewire.js';
import { listChildren } from '../card/children.js';
import { loadBoard } from '../config/load-config.js';
import { BoardError, RoundError, UsageError } from '../errors.js';
import { oneLine } from '../core/failure-reason.js';
import { recordRefusal } from '../vault/runs.js';
import { acquireRoundLock } from '../vault/lock.js';
import { VaultLayout } from '../vault/layout.js';
import { resolveNow, type CommandEnv, type GlobalOptions } from './common.js';
import { parseDurationOption } from './duration.js';
import { foreignOriginWarning } from './unblock-warning.js';
import { journalForVerb, journalVerb } from '../journal/index.js';
import { terminalLines } from '../format/control.js';
import { assertRealFolders } from '../vault/real-folders.js';

/** Without a config, `board card fail` blocks a card at this many attempts (the CONTRACT's default). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * The vault for the card verbs: `--vault`, else BOARD_VAULT, else the config's `vault`. A worker
 * needs no config file when BOARD_VAULT is set; when a config is named (`--config`,
 * BOARD_CONFIG) or ./board.yml exists, it is read for `max_attempts` (else 3) and a broken one
 * is an error, not a silent default.
 */
export async function cardContext(options: GlobalOptions, env: CommandEnv): Promise<CardContext> {
  const now = resolveNow(options.now, env.clock);
  const vaultArg = options.vault || env.env.BOARD_VAULT || undefined;
  const namedConfig = options.config || env.env.BOARD_CONFIG || undefined;
  const localConfig = await fs.access(path.resolve(env.cwd, 'board.yml')).then(() => true, () => false);
  let root = vaultArg ? path.resolve(env.cwd, vaultArg) : undefined;
  let maxAttempts = DEFAULT_MAX_ATTEMPTS;
  if (namedConfig || localConfig || root === undefined) {
    const board = await loadBoard({ config: options.config, vault: vaultArg, cwd: env.cwd, env: env.env });
    root = board.config.vault;
    maxAttempts = board.config.max_attempts;
  }
  const layout = new VaultLayout(root);
  await assertBoardAt(layout, options.vault ? '--vault' : vaultArg ? 'BOARD_VAULT' : 'the config\'s `vault`');
  // No verb reads or writes through a state folder that is a link (CONTRACT "What the census reads").
  await assertRealFolders(layout);
  return { layout, now, maxAttempts, env: env.env, cwd: env.cwd };
}

/**
 * A verb the board refuses to a worker (BOARD_RUN set: it runs for a claim) is kept next to the
 * run's record, so the run's reason says it (supervisor.ts) and not only the model's transcript.
 * The refusal still ends the verb as before; keeping it never turns it into another failure.
 */
async function keepingRefusal(verb: string, options: GlobalOptions, env: CommandEnv, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    const runId = env.env.BOARD_RUN;
    const vault = options.vault || env.env.BOARD_VAULT;
    if (error instanceof BoardError && runId && vault && !/[/\\]|^\.\.?$/.test(runId)) {
      const kanban = new VaultLayout(path.resolve(env.cwd, vault)).kanban;
      await recordRefusal(kanban, runId, { verb, message: oneLine(error.message), at: resolveNow(options.now, env.clock).toISOString() }).catch(() => undefined);
    }
    throw error;
  }
}

/** A vault without KANBAN/ is a wrong path, said in one line (not a stack from the first mkdir). */
async function assertBoardAt(layout: VaultLayout, source: string): Promise<void> {
  const problem = await fs.stat(layout.kanban).then(
    (st) => (st.isDirectory() ? undefined : 'is not a folder'),
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? error.message})`),
  );
  if (problem) throw new UsageError(`no board at ${layout.root}: ${layout.kanban} ${problem} (the vault comes from ${source}: is it right?)`);
}

async function print(options: GlobalOptions, env: CommandEnv, result: CardResult, text = result.message, data?: Record<string, string>): Promise<number> {
  // The journal (issue #4): one event per verb, caused by the worker's claim (BOARD_CAUSE).
  await journalVerb({ ...result, ...(data ? { data } : {}) }, { env: env.env, cwd: env.cwd, config: options.config, at: resolveNow(options.now, env.clock) });
  env.stdout(options.json ? `${JSON.stringify(result)}\n` : `${terminalLines(text)}\n`);
  return 0;
}

/** `card new`'s flags: the verb's own arguments, with `--input` repeatable. */
export type NewOptions = GlobalOptions & Omit<NewCardArgs, 'inputs'> & { readonly input?: string[] };

/** `board card new`: prints the new card's path (the whole result with --json). */
export async function cardNewCommand(options: NewOptions, env: CommandEnv): Promise<number> {
  return keepingRefusal('new', options, env, async () => {
    const ctx = await cardContext(options, env);
    const { input, config: _config, vault: _vault, now: _now, json: _json, ...fields } = options;
    const args: NewCardArgs = { ...fields, inputs: input ?? [] };
    const result = await newCard(ctx, args);
    return print(options, env, result, result.file);
  });
}

export async function cardNoteCommand(card: string, milestone: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  return keepingRefusal('note', options, env, async () => {
    const result = await noteCard(await cardContext(options, env), card, milestone);
    return print(options, env, result, result.message, { text: milestone });
  });
}

export interface CloseOptions extends GlobalOptions {
  readonly path?: string[];
  readonly empty?: string;
}

export async function cardCloseCommand(card: string, options: CloseOptions, env: CommandEnv): Promise<number> {
  return keepingRefusal('close', options, env, async () => {
    const ctx = await cardContext(options, env);
    return print(options, env, await closeCard(ctx, card, { paths: options.path ?? [], ...(options.empty !== undefined ? { empty: options.empty } : {}) }));
  });
}

export async function cardFailCommand(card: string, reason: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  return keepingRefusal('fail', options, env, async () => {
    const result = await failCard(await cardContext(options, env), card, reason);
    return print(options, env, result, result.message, { reason });
  });
}

export async function cardBlockCommand(card: string, reason: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  return keepingRefusal('block', options, env, async () => print(options, env, await blockCard(await cardContext(options, env), card, reason)));
}

export async function cardYieldCommand(card: string, options: GlobalOptions & { until: string }, env: CommandEnv): Promise<number> {
  return keepingRefusal('yield', options, env, async () => print(options, env, await yieldCard(await cardContext(options, env), card, options.until)));
}

export async function cardRewireCommand(card: string, options: GlobalOptions & { until: string }, env: CommandEnv): Promise<number> {
  return print(options, env, await rewireCard(await cardContext(options, env), card, options.until));
}

/** `board card children CARD`: reads only, journals nothing. */
export async function cardChildrenCommand(card: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  const result = await listChildren(await cardContext(options, env), card);
  if (options.json) {
    env.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const lines = [`${result.director}: ${result.children.length === 0 ? 'no children (no card names it as its director)' : `${result.children.length} ${result.children.length === 1 ? 'child' : 'children'}`}${result.awaits ? `; waits on ${result.awaits}` : ''}`];
  for (const c of result.children) {
    lines.push(`  ${`${c.folder}/`.padEnd(13)} ${c.card}${c.awaited ? '  ← awaited' : ''}${c.flow ? `  [flow ${c.flow}]` : ''}${c.blocked ? `  blocked: ${c.blocked}` : ''}${c.request ? `\n  ${' '.repeat(13)} "${c.request}"` : ''}`);
  }
  env.stdout(`${terminalLines(lines.join('\n'))}\n`);
  return 0;
}

export async function cardCancelCommand(card: string, options: GlobalOptions & { reason: string }, env: CommandEnv): Promise<number> {
  return print(options, env, await cancelCard(await cardContext(options, env), card, options.reason));
}

export async function unblockCommand(card: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  const ctx = await cardContext(options, env);
  const result = await unblockCard(ctx, card);
  const warning = await foreignOriginWarning(result.file, ctx.layout, options, env);
  return print(options, env, warning ? { ...result, warning } as typeof result : result, warning ? `${result.message}\n${warning}` : result.message);
}

/** `board archive`: under the round lock, so no tick reads done/ while cards leave it. */
export async function archiveCommand(options: GlobalOptions & { olderThan?: string }, env: CommandEnv): Promise<number> {
  const ctx = await cardContext(options, env);
  const olderThanMs = parseDurationOption('--older-than', options.olderThan ?? '7d', 0);
  const lock = await acquireRoundLock(ctx.layout.kanban, (error) => env.logger.error({ err: error }, 'round lock compromised')).catch((error: Error) => {
    throw new RoundError(`cannot take the round lock in ${ctx.layout.kanban}: ${error.message}`);
  });
  if (!lock.acquired) throw new RoundError(`a round is running on this vault (${lock.reason}): archive again later (nothing was moved)`);
  let result: ArchiveResult;
  try {
    result = await archiveCards(ctx.layout, ctx.now, olderThanMs);
  } finally {
    await lock.release().catch((error: Error) => env.logger.error({ err: error }, 'could not release the round lock'));
  }
  const journalOptions = { env: env.env, cwd: env.cwd, config: options.config, at: ctx.now };
  const journal = await journalForVerb(journalOptions);
  for (const a of result.archived) await journalVerb({ verb: 'archive', card: a.card, file: a.to, message: `archived → ${a.to}` }, journalOptions, journal);
  for (const k of result.kept) env.logger.warn({ card: k.card, reason: k.reason }, 'closed card kept in done/');
  if (options.json) {
    env.stdout(`${JSON.stringify(result)}\n`);
  } else {
    const lines = [
      `archive on ${ctx.layout.root}: ${result.archived.length} moved, ${result.kept.length} kept, ${result.young} closed less than ${options.olderThan ?? '7d'} ago`,
      ...result.archived.map((a) => `  archived  ${a.card} → ${a.to}`),
      ...result.kept.map((k) => `  kept      ${k.card} — ${k.reason}`),
    ];
    env.stdout(`${terminalLines(lines.join('\n'))}\n`);
  }
  return 0;
}
