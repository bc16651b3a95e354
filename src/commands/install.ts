import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BOARD_CLI } from '../entry-points.js';
import { UsageError } from '../errors.js';
import { launchdCommands, launchdPlist, systemdCommands, systemdUnits, type UnitFile, type UnitSpec } from '../install/units.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { parseDurationOption } from './duration.js';

export interface InstallOptions extends GlobalOptions {
  readonly interval?: string;
  readonly write?: boolean;
  readonly force?: boolean;
  readonly name?: string;
}


/**
 * `board install systemd|launchd`: the unit files that run `board tick` with this config every
 * interval. Printed by default; with `--write`, installed for the current user (never replacing
 * an existing file without `--force`), followed by the commands to enable and inspect them.
 */
export async function installCommand(kind: string, options: InstallOptions, env: CommandEnv): Promise<number> {
  if (kind !== 'systemd' && kind !== 'launchd') throw new UsageError(`install: "${kind}" is not a service manager; use systemd or launchd`);
  if (options.now !== undefined) throw new UsageError('--now makes no sense for `board install`: the timer runs on the real clock');
  const intervalMs = parseDurationOption('--interval', options.interval ?? '5m', 1_000);
  if (intervalMs % 1_000 !== 0) throw new UsageError('--interval: whole seconds only');
  const name = options.name ?? 'board-tick';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new UsageError(`--name: "${name}" is not a plain unit name`);
  // A unit for a config that does not load would fail every beat: check it now.
  const { board } = await prepare(options, env);
  const args = ['tick', '--config', board.config.configFile, ...(options.vault ? ['--vault', board.config.vault] : [])];
  const spec: UnitSpec = {
    name,
    node: process.execPath,
    cli: BOARD_CLI,
    args,
    intervalSeconds: intervalMs / 1_000,
    workingDirectory: path.dirname(board.config.configFile),
    logsDir: board.config.logsDir,
    path: env.env.PATH,
    vault: board.config.vault,
  };
  const home = env.env.HOME && env.env.HOME !== '' ? env.env.HOME : os.homedir();
  let files: UnitFile[];
  let commands: string[];
  if (kind === 'systemd') {
    const dir = path.join(env.env.XDG_CONFIG_HOME && env.env.XDG_CONFIG_HOME !== '' ? env.env.XDG_CONFIG_HOME : path.join(home, '.config'), 'systemd', 'user');
    files = systemdUnits(spec, dir);
    commands = systemdCommands(spec);
  } else {
    const plist = launchdPlist(spec, path.join(home, 'Library', 'LaunchAgents'));
    files = [plist];
    commands = launchdCommands(spec, plist.file);
  }

  if (options.write) {
    const existing: string[] = [];
    for (const f of files) if (await exists(f.file)) existing.push(f.file);
    if (existing.length > 0 && !options.force) {
      throw new UsageError(`install: ${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}; pass --force to replace`);
    }
    if (kind === 'launchd') await fs.mkdir(spec.logsDir, { recursive: true });
    for (const f of files) {
      await fs.mkdir(path.dirname(f.file), { recursive: true });
      await fs.writeFile(f.file, f.content, 'utf8');
    }
  }

  if (options.json) {
    env.stdout(`${JSON.stringify({ kind, written: options.write === true, files, commands }, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [];
  if (options.write) {
    out.push(...files.map((f) => `wrote ${f.file}`), '', 'enable and inspect it with:', ...commands.map((c) => `  ${c}`));
  } else {
    for (const f of files) out.push(`# ${f.file}`, f.content);
    out.push(`# install it with \`board install ${kind} --write\`, then:`, ...commands.map((c) => `#   ${c}`));
  }
  env.stdout(`${out.join('\n')}\n`);
  return 0;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
