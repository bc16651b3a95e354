#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { BoardError, EXIT } from './errors.js';
import { processEnv, type CommandEnv, type GlobalOptions } from './commands/common.js';
import { dryRunCommand } from './commands/dry-run.js';
import { tickCommand } from './commands/tick.js';

/** The options every command takes (CONTRACT "Commands"). */
export function withGlobalOptions(command: Command): Command {
  return command
    .option('--config <file>', 'board config (default: $BOARD_CONFIG, else ./board.yml)')
    .option('--vault <dir>', "the vault's root, overriding `vault` in the config")
    .addOption(new Option('--now <iso>', 'the clock, as an ISO 8601 time (previews and tests)'))
    .option('--json', 'one JSON document on stdout; logs stay on stderr');
}

type Action<O> = (options: O & GlobalOptions, env: CommandEnv) => Promise<number>;

/** Run an action and turn its outcome into an exit code: the one place errors meet exit codes. */
export function runAction<O>(action: Action<O>, env: CommandEnv = processEnv()) {
  return async (options: O & GlobalOptions): Promise<void> => {
    try {
      process.exitCode = await action(options, env);
    } catch (error) {
      if (error instanceof BoardError) {
        process.stderr.write(`board: ${error.message}\n`);
        process.exitCode = error.exitCode;
      } else {
        process.stderr.write(`board: unexpected failure: ${(error as Error).stack ?? String(error)}\n`);
        process.exitCode = EXIT.failure;
      }
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('board')
    .description('The deterministic dispatcher of the Atomic Agents standard: matches cards to profiles by string comparison, claims and spawns.')
    .showHelpAfterError()
    .exitOverride();

  withGlobalOptions(program.command('tick'))
    .description('run one heartbeat: scheduled → profiles → cards → match → dispatch → zombies')
    .action(runAction(tickCommand));

  withGlobalOptions(program.command('dry-run'))
    .description("print the round's plan; writes nothing, claims nothing, spawns nothing")
    .action(runAction(dryRunCommand));

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
}

await main(process.argv);
