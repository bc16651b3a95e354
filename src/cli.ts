#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { BOARD_CLI } from './entry-points.js';
import { BoardError, EXIT } from './errors.js';
import { forTerminal, terminalLines } from './format/control.js';
import { processEnv, type CommandEnv, type GlobalOptions } from './commands/common.js';
import type { HarnessCheckOptions } from './commands/harness-check.js';
import type { WatchOptions } from './commands/watch.js';
import type { InstallOptions } from './commands/install.js';
import type { LogOptions } from './commands/log.js';
import type { RunsOptions } from './commands/runs.js';
import type { ShowOptions } from './commands/show.js';
import type { ReplayOptions } from './commands/replay.js';
import type { CostOptions } from './commands/cost.js';
import type { ProfileNewOptions } from './commands/profile.js';
import type { StatusOptions } from './commands/status.js';
import type { TraceOptions } from './commands/trace.js';

/** The options every command takes (CONTRACT "Commands"). */
export function withGlobalOptions(command: Command): Command {
  return command
    .option('--config <file>', 'board config (default: $BOARD_CONFIG, else board.yml in the current folder or the nearest folder above it)')
    .option('--vault <dir>', "the vault's root, overriding `vault` in the config")
    .addOption(new Option('--now <iso>', 'the clock, as an ISO 8601 time (previews and tests)'))
    .option('--json', 'one JSON document on stdout; logs stay on stderr')
    .option('--quiet', 'print nothing on stdout (but --json documents); log only warnings and errors')
    .addOption(new Option('--log-format <format>', 'logs on stderr: readable lines on a terminal, JSON lines otherwise').choices(['auto', 'json', 'pretty']));
}

/**
 * Failures of the machine, not of the board: a full or read-only disk, a permission. Foreseeable
 * anywhere a file is written, so they are told in one line naming the file, not as a stack.
 */
const EXPECTED_ERRNO: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the filesystem is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'a symbolic link where the board does not follow links',
};

/** One line for an expected errno failure, or undefined for anything else. */
export function expectedFailureLine(error: unknown): string | undefined {
  const e = error as (NodeJS.ErrnoException & { dest?: string }) | undefined;
  const what = e && typeof e.code === 'string' ? EXPECTED_ERRNO[e.code] : undefined;
  if (!what) return undefined;
  const file = e!.path ? `${e!.syscall ? `${e!.syscall} ` : ''}${e!.path}${e!.dest ? ` → ${e!.dest}` : ''}: ` : '';
  return `board: ${file}${what} (${e!.code})`;
}

/** A failure no command foresaw: its stack on stderr, exit 1. An expected errno failure: one line. */
function unexpectedFailure(error: unknown): void {
  const line = expectedFailureLine(error);
  process.stderr.write(line ? `${forTerminal(line)}\n` : `board: unexpected failure: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = EXIT.failure;
}

type Action<O> = (options: O & GlobalOptions, env: CommandEnv) => Promise<number>;

/**
 * Set once a command that only reads and prints has answered: `main` then exits as soon as its
 * output is flushed, instead of letting Node tear down a heap the census filled (30–50 ms of a
 * 10k-card `dry-run` or `status`, measured). Such a command leaves nothing behind to finish: it
 * writes no file, spawns no process, and awaits what it starts. Commands that write keep Node's
 * own ending.
 */
let answered = false;

/** `runAction` for a command that only reads and prints (see `answered`). */
function readOnlyAction<O>(action: Action<O>) {
  const run = runAction(action);
  return async (options: O & GlobalOptions): Promise<void> => {
    await run(options);
    answered = true;
  };
}

/** Run an action and turn its outcome into an exit code: the one place errors meet exit codes. */
export function runAction<O>(action: Action<O>, makeEnv: (options: GlobalOptions) => CommandEnv | Promise<CommandEnv> = processEnv) {
  return async (options: O & GlobalOptions): Promise<void> => {
    // Built only for the command that runs (each command module is loaded on demand too, so
    // `board --help` and a short tick do not pay for twenty commands' imports).
    let env: CommandEnv;
    try {
      env = await makeEnv(options);
    } catch (error) {
      return unexpectedFailure(error);
    }
    try {
      process.exitCode = await action(options, env);
    } catch (error) {
      if (error instanceof BoardError) {
        process.stderr.write(`board: ${terminalLines(error.message)}\n`);
        process.exitCode = error.exitCode;
      } else {
        unexpectedFailure(error);
      }
    }
  };
}

/** The installed package's version: package.json sits next to dist/, in a clone as in a package. */
function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(path.dirname(BOARD_CLI), '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function buildProgram(): Command {
  const program = new Command('board')
    .version(packageVersion(), '-V, --version', "print the board's version")
    .description('The deterministic dispatcher of the Atomic Agents standard: matches cards to profiles by string comparison, claims and spawns.')
    .showHelpAfterError()
    .exitOverride();

  withGlobalOptions(program.command('init').argument('[dir]', 'the folder to set up (default: the current folder)'))
    .description('a working board in one command: board.yml, the KANBAN folders, an example profile, card, scheduled template and a model-free harness')
    .action((dir: string | undefined, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/init.js')).initCommand(dir, o, env))(options));
  const profile = program.command('profile').description('write profiles');
  withGlobalOptions(profile.command('new').argument('<name>', 'the trade name, kebab-case (the folder under AGENTS/)'))
    .description('write AGENTS/NAME/PROFILE.md with every field shown and commented, and its first skill folder')
    .option('--function <f>', 'its cognitive function (level 1 of matching)', 'write')
    .option('--handles <phrase>', 'a phrase it takes (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--refuses <phrase>', 'a phrase that rules it out (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--description <text>', 'what it does and does not do')
    .option('--director', 'a director: chains --profiles with a failure policy, mounts no skills')
    .option('--profiles <a,b>', 'with --director: the profiles it chains, comma-separated, in order')
    .option('--failure-policy <policy>', 'with --director: what a failure does (default block)')
    .action((name: string, options: ProfileNewOptions) => runAction(async (o: ProfileNewOptions, env) => (await import('./commands/profile.js')).profileNewCommand(name, o, env))(options));

  withGlobalOptions(program.command('tick'))
    .description('run one heartbeat: scheduled → profiles → cards → match → dispatch → zombies')
    .action(runAction(async (o, env) => (await import('./commands/tick.js')).tickCommand(o, env)));

  withGlobalOptions(program.command('dry-run'))
    .description("print the round's plan; writes nothing, claims nothing, spawns nothing")
    .action(readOnlyAction(async (o, env) => (await import('./commands/dry-run.js')).dryRunCommand(o, env)));

  // The worker's side of the card (issue #3): verbs that keep the protocol instead of hand-edited YAML.
  const collect = (value: string, previous: string[] = []) => [...previous, value];
  const card = program.command('card').description("a card's verbs, for workers, directors and humans: each validates, writes atomically and appends to the Record");
  withGlobalOptions(card.command('new'))
    .description('write a valid card into pending/ (a unique YYYY-MM-DD-<slug>.md); prints its path')
    .requiredOption('--function <f>', 'the cognitive function (level 1 of matching)')
    .requiredOption('--request <text>', 'the matchable request')
    .option('--input <name=path>', 'an input by reference, vault-relative (repeatable)', collect)
    .option('--priority <p>', 'normal or urgent')
    .option('--recipient <profile>', 'push to a profile, skipping matching')
    .option('--push-reason <text>', 'why it is pushed (with --recipient)')
    .option('--origin <o>', 'provenance (default human; from a worker: its director profile)')
    .option('--destination <path>', 'a concrete output file, vault-relative')
    .option('--flow <x>', 'the flow this child belongs to (with --director)')
    .option('--director <card>', "the director's card (with --flow)")
    .action(runAction(async (o, env) => (await import('./commands/card.js')).cardNewCommand(o, env)));
  withGlobalOptions(card.command('show').argument('<card>'))
    .description("a card's fields and Record, wherever it is (--json: for workers in any language, no YAML parsing)")
    .action((ref: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card-show.js')).cardShowCommand(ref, o, env))(options));
  withGlobalOptions(card.command('note').argument('<card>').argument('<milestone>'))
    .description('a progress milestone in the Record (right after admission, and as work goes)')
    .action((ref: string, milestone: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card.js')).cardNoteCommand(ref, milestone, o, env))(options));
  withGlobalOptions(card.command('close').argument('<card>'))
    .description('fill paths, set closed, closing Record line, move to done/')
    .option('--path <p>', 'an output that exists in the vault (repeatable)', collect)
    .option('--empty <justification>', 'close with no outputs: a legitimate exception, recorded as such')
    .action((ref: string, options: GlobalOptions & { path?: string[]; empty?: string }) => runAction(async (o: typeof options, env) => (await import('./commands/card.js')).cardCloseCommand(ref, o, env))(options));
  withGlobalOptions(card.command('fail').argument('<card>').argument('<reason>'))
    .description('back to pending/ with attempts + 1 (blocked at max_attempts)')
    .action((ref: string, reason: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card.js')).cardFailCommand(ref, reason, o, env))(options));
  withGlobalOptions(card.command('block').argument('<card>').argument('<reason>'))
    .description('set `blocked: <date> <reason>`; the card stays where it is')
    .action((ref: string, reason: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card.js')).cardBlockCommand(ref, reason, o, env))(options));
  withGlobalOptions(card.command('yield').argument('<card>'))
    .description("the director's yield: sleep in pending/ on inputs.dependent_task until the child is in done/ (no attempt spent)")
    .requiredOption('--until <child>', 'the child card (file name or path)')
    .action((ref: string, options: GlobalOptions & { until: string }) => runAction(async (o: typeof options, env) => (await import('./commands/card.js')).cardYieldCommand(ref, o, env))(options));
  withGlobalOptions(card.command('rewire').argument('<card>'))
    .description("a human's repair of a sleeping director: inputs.dependent_task = the child's done/ path, by yield's wiring self-check (the child must name CARD as its director)")
    .requiredOption('--until <child>', 'the child card (file name or path)')
    .action((ref: string, options: GlobalOptions & { until: string }) => runAction(async (o: typeof options, env) => (await import('./commands/card.js')).cardRewireCommand(ref, o, env))(options));
  withGlobalOptions(card.command('children').argument('<card>'))
    .description("a director's children (cards whose `director` names it), wherever they are, and which one it waits on")
    .action((ref: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card.js')).cardChildrenCommand(ref, o, env))(options));

  withGlobalOptions(card.command('cancel').argument('<card>'))
    .description("a human's stop: stops the card's worker, returns the card to pending/ and blocks it with the reason")
    .requiredOption('--reason <text>', 'why the card is cancelled (written into `blocked` and the Record)')
    .action((ref: string, options: GlobalOptions & { reason: string }) => runAction(async (o: typeof options, env) => (await import('./commands/card.js')).cardCancelCommand(ref, o, env))(options));

  withGlobalOptions(program.command('unblock').argument('<card>'))
    .description("the human's way to clear `blocked` (attempts are reset when they were exhausted)")
    .action((ref: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/card.js')).unblockCommand(ref, o, env))(options));

  withGlobalOptions(program.command('archive'))
    .description('move closed cards from done/ into archive/YYYY-MM/ by their `closed` month (for the OS scheduler)')
    .option('--older-than <age>', 'only cards closed at least this long ago', '7d')
    .action(runAction(async (o, env) => (await import('./commands/card.js')).archiveCommand(o, env)));

  // Try a harness before trusting it (issue #7).
  const harness = program.command('harness').description('inspect the installed harnesses');
  withGlobalOptions(harness.command('check').argument('<name>'))
    .description('is the CLI installed (which version), is its credential guard wired, and the exact command a card would get')
    .option('--card <name>', 'card file name to compose for (default: a placeholder, example.md)')
    .option('--profile <name>', 'profile folder under AGENTS/ to compose for (default: example)')
    .option('--capacity <level>', 'model capacity to pick from models.yml (minimum, standard, advanced)', 'standard')
    .option('--modality <m>', 'model modality to pick from models.yml (text, audio, image)', 'text')
    .action((name: string, options: HarnessCheckOptions) => runAction(async (o: HarnessCheckOptions, env) => (await import('./commands/harness-check.js')).harnessCheckCommand(name, o, env))(options));

  // Always on (issue #5): the daemon, the board at a glance, the design-time checks, the OS timer.
  withGlobalOptions(program.command('watch'))
    .description('run a round whenever pending/, done/ or AGENTS/ change, and on a heartbeat, under the round lock; one line per round and per card it moved (--json: one JSON object per line, not one document); SIGTERM/SIGINT finish the round and exit')
    .option('--interval <duration>', 'heartbeat: a round at least this often, changes or not', '5m')
    .option('--debounce <duration>', 'quiet time after the last change before a round', '500ms')
    .option('--poll', 'poll instead of native events (network filesystems)')
    .option('--poll-interval <duration>', 'how often to poll with --poll', '2s')
    .action(runAction<WatchOptions>(async (o, env) => (await import('./commands/watch.js')).watchCommand(o, env)));

  withGlobalOptions(program.command('status'))
    .description('the board at a glance: counts, waiting cards and why, blocked, in progress, left-out profiles, workers that could not start, unreadable and non-card files, false closes, last round')
    .option('--board', 'the kanban view: scheduled, pending, in-progress and done as columns (urgent marked, next due time of each template)')
    .option('--width <columns>', 'width of the --board view (default: the terminal\'s)')
    .action(readOnlyAction<StatusOptions>(async (o, env) => (await import('./commands/status.js')).statusCommand(o, env)));

  withGlobalOptions(program.command('lint'))
    .description("design-time checks: schemas, rank, the standard's ambiguity check, skills, credential guards, models; exit 1 on any finding")
    .action(readOnlyAction(async (o, env) => (await import('./commands/lint.js')).lintCommand(o, env)));

  withGlobalOptions(program.command('install').argument('<manager>', 'systemd or launchd'))
    .description('print (or with --write, install for this user) a timer that runs `board tick` with this config')
    .option('--interval <duration>', 'how often the timer runs the tick', '5m')
    .option('--write', 'install the files for the current user')
    .option('--force', 'with --write, replace existing files')
    .option('--name <name>', 'unit name (systemd) / label suffix (launchd)', 'board-tick')
    .action((manager: string, options: InstallOptions) => runAction(async (o: InstallOptions, env) => (await import('./commands/install.js')).installCommand(manager, o, env))(options));

  // Journal and provenance (issue #4): the causal history, and every run's stored request.
  withGlobalOptions(program.command('log'))
    .description('the journal: every transition, oldest first, with its id and cause')
    .option('--card <card>', 'only this card (file name or path)')
    .option('--since <time>', 'an ISO time, or a duration ago (2h, 1d)')
    .action(readOnlyAction<LogOptions>(async (o, env) => (await import('./commands/log.js')).logCommand(o, env)));
  withGlobalOptions(program.command('trace').argument('<card>'))
    .description("the card's causal chain, from the first input to the last delivery, as a tree")
    .option('--mermaid', 'as a Mermaid flowchart (one lane per card), to paste in a ```mermaid block: GitHub and Obsidian draw it')
    .action((ref: string, options: TraceOptions) => runAction(async (o: TraceOptions, env) => (await import('./commands/trace.js')).traceCommand(ref, o, env))(options));
  withGlobalOptions(program.command('runs'))
    .description('every recorded dispatch and replay: profile, harness/model, start, outcome, cost')
    .option('--card <card>', 'only runs of this card')
    .action(readOnlyAction<RunsOptions>(async (o, env) => (await import('./commands/runs.js')).runsCommand(o, env)));
  withGlobalOptions(program.command('show').argument('<run>', 'a run id, or a prefix only one run has'))
    .description("a run's manifest: stored components, argv, times, exit code, cost")
    .option('--component <name>', 'print one stored component (profile, skill:<name>, card, harness, prompt)')
    .action((ref: string, options: ShowOptions) => runAction(async (o: ShowOptions, env) => (await import('./commands/show.js')).showCommand(ref, o, env))(options));
  withGlobalOptions(program.command('diff').argument('<runA>').argument('<runB>'))
    .description('which components of two runs are the same, changed, added or gone, with a text diff of the changed ones')
    .action((a: string, b: string, options: GlobalOptions) => runAction(async (o: GlobalOptions, env) => (await import('./commands/diff.js')).diffCommand(a, b, o, env))(options));
  withGlobalOptions(program.command('replay').argument('<run>'))
    .description('rebuild a run\'s request from the store and spawn it again as a new run, on a copy of the card (the live card is never touched)')
    .option('--model <m>', 'another model')
    .option('--harness <h>', 'another harness (the prompt is re-rendered from its template)')
    .option('--dry-run', 'print the rebuilt request; write and spawn nothing')
    .action((ref: string, options: ReplayOptions) => runAction(async (o: ReplayOptions, env) => (await import('./commands/replay.js')).replayCommand(ref, o, env))(options));
  withGlobalOptions(program.command('cost'))
    .description('run costs (tokens, usd: measured by the credential proxy, else read from the log), summed; today\'s spend against daily_budget')
    .option('--by <what>', 'profile, flow, day, model, harness, card or run', 'profile')
    .action(readOnlyAction<CostOptions>(async (o, env) => (await import('./commands/cost.js')).costCommand(o, env)));

  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not failures; every other parse error is bad usage.
      process.exitCode = error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
      return;
    }
    throw error;
  }
  if (answered) exitOnceFlushed();
}

/** Exit with `process.exitCode` once what was written to stdout and stderr has left the process. */
function exitOnceFlushed(): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}

// Not a top-level await: the shipped CLI is a CommonJS bundle (see src/launcher.ts).
main(process.argv).catch(unexpectedFailure);
