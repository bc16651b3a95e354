/**
 * The OS scheduler's side of the two-layer doctrine: "something has to beat outside the board".
 * Pure renderers of a systemd user service + timer and a launchd agent that run `board tick`.
 */

export interface UnitSpec {
  /** Unit name (systemd) / label suffix (launchd): `board-tick` unless told otherwise. */
  readonly name: string;
  readonly node: string;
  readonly cli: string;
  /** Arguments after the CLI: `tick --config <abs>` (and `--vault <abs>` when given). */
  readonly args: readonly string[];
  readonly intervalSeconds: number;
  readonly workingDirectory: string;
  readonly logsDir: string;
  readonly path?: string | undefined;
  readonly vault: string;
}

export interface UnitFile {
  readonly file: string;
  readonly content: string;
}

/** systemd's quoting for ExecStart: double quotes, backslash escapes, `%` and `$` doubled. */
export function systemdQuote(arg: string): string {
  return `"${arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

function systemdEnvValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
}

export function systemdUnits(spec: UnitSpec, unitDir: string): UnitFile[] {
  const exec = [spec.node, spec.cli, ...spec.args].map(systemdQuote).join(' ');
  const service = [
    '[Unit]',
    `Description=atomic-board heartbeat (board tick) for ${spec.vault}`,
    // No After=network-online.target: a user manager has no such unit (it only waits on the
    // system's); a tick needs no network, and a worker that does retries or fails its card.
    '',
    '[Service]',
    'Type=oneshot',
    `ExecStart=${exec}`,
    `WorkingDirectory=${spec.workingDirectory}`,
    ...(spec.path ? [`Environment="PATH=${systemdEnvValue(spec.path)}"`] : []),
    // The tick spawns detached supervisors and workers: stopping the oneshot must not kill them.
    'KillMode=process',
    '',
  ].join('\n');
  const timer = [
    '[Unit]',
    `Description=Run board tick every ${spec.intervalSeconds}s for ${spec.vault}`,
    '',
    '[Timer]',
    'OnBootSec=1min',
    `OnUnitActiveSec=${spec.intervalSeconds}s`,
    'AccuracySec=10s',
    // Catch up once after a sleep or power-off; the board itself never catches up periods.
    'Persistent=true',
    `Unit=${spec.name}.service`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return [
    { file: `${unitDir}/${spec.name}.service`, content: service },
    { file: `${unitDir}/${spec.name}.timer`, content: timer },
  ];
}

export function systemdCommands(spec: UnitSpec): string[] {
  return [
    `systemctl --user daemon-reload && systemctl --user enable --now ${spec.name}.timer`,
    `systemctl --user list-timers ${spec.name}.timer`,
    `systemctl --user status ${spec.name}.service`,
    `journalctl --user -u ${spec.name} -f`,
    `loginctl enable-linger "$USER"   # optional: keep the timer running while you are logged out`,
  ];
}

export function launchdLabel(name: string): string {
  return `dev.atomic-board.${name}`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function launchdPlist(spec: UnitSpec, agentsDir: string): UnitFile {
  const label = launchdLabel(spec.name);
  const strings = (items: readonly string[]) => items.map((s) => `    <string>${xml(s)}</string>`).join('\n');
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${xml(label)}</string>
  <key>ProgramArguments</key>
  <array>
${strings([spec.node, spec.cli, ...spec.args])}
  </array>
  <key>StartInterval</key>
  <integer>${spec.intervalSeconds}</integer>
  <key>RunAtLoad</key>
  <true/>
  <key>WorkingDirectory</key>
  <string>${xml(spec.workingDirectory)}</string>
${spec.path ? `  <key>EnvironmentVariables</key>\n  <dict>\n    <key>PATH</key>\n    <string>${xml(spec.path)}</string>\n  </dict>\n` : ''}  <key>StandardOutPath</key>
  <string>${xml(`${spec.logsDir}/${spec.name}.out.log`)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(`${spec.logsDir}/${spec.name}.err.log`)}</string>
  <key>AbandonProcessGroup</key>
  <true/>
</dict>
</plist>
`;
  return { file: `${agentsDir}/${label}.plist`, content };
}

export function launchdCommands(spec: UnitSpec, plistFile: string): string[] {
  const label = launchdLabel(spec.name);
  return [
    `launchctl load -w ${plistFile}`,
    `launchctl list | grep ${label}`,
    `tail -f ${spec.logsDir}/${spec.name}.err.log`,
    `launchctl unload -w ${plistFile}   # to stop it`,
  ];
}
