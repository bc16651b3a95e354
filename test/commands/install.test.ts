import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandEnv } from '../../src/commands/common.js';
import { installCommand } from '../../src/commands/install.js';
import { UsageError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { systemdQuote } from '../../src/install/units.js';
import { makeBoard } from '../helpers/vault.js';

function setup() {
  const root = makeBoard({});
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'board-home-'));
  const out: string[] = [];
  const env: CommandEnv = { cwd: root, env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' }, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date() };
  return { root, home, env, text: () => out.join(''), reset: () => (out.length = 0) };
}

describe('board install', () => {
  it('systemd: prints a oneshot service and a timer that run `board tick` with this config, absolute paths throughout', async () => {
    const { root, home, env, text } = setup();
    expect(await installCommand('systemd', { config: 'board.yml', interval: '10m' }, env)).toBe(0);
    const out = text();
    const config = path.join(root, 'board.yml');
    expect(out).toContain(`# ${home}/.config/systemd/user/board-tick.service`);
    expect(out).toContain('Type=oneshot');
    expect(out).toContain(`ExecStart="${process.execPath}" "`);
    expect(out).toMatch(/ExecStart=.*cli\.cjs" "tick" "--config" "/);
    expect(out).toContain(`"${config}"`);
    expect(out).toContain('KillMode=process');
    expect(out).toContain('OnUnitActiveSec=600s');
    expect(out).toContain('OnBootSec=');
    expect(out).toContain('Persistent=true');
    expect(out).toContain('systemctl --user daemon-reload && systemctl --user enable --now board-tick.timer');
    expect(out).toContain('journalctl --user -u board-tick');
    expect(fs.existsSync(path.join(home, '.config'))).toBe(false);
  });

  it('systemd --write installs under $HOME for the current user, and never overwrites without --force', async () => {
    const { home, env, text, reset } = setup();
    expect(await installCommand('systemd', { config: 'board.yml', write: true }, env)).toBe(0);
    const dir = path.join(home, '.config/systemd/user');
    expect(fs.readdirSync(dir).sort()).toEqual(['board-tick.service', 'board-tick.timer']);
    expect(fs.readFileSync(path.join(dir, 'board-tick.timer'), 'utf8')).toContain('OnUnitActiveSec=300s');
    expect(text()).toContain('systemctl --user enable --now board-tick.timer');
    fs.writeFileSync(path.join(dir, 'board-tick.timer'), 'mine');
    reset();
    await expect(installCommand('systemd', { config: 'board.yml', write: true }, env)).rejects.toThrow(UsageError);
    expect(fs.readFileSync(path.join(dir, 'board-tick.timer'), 'utf8')).toBe('mine');
    expect(await installCommand('systemd', { config: 'board.yml', write: true, force: true }, env)).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'board-tick.timer'), 'utf8')).toContain('[Timer]');
  });

  it('launchd: a plist with StartInterval, ProgramArguments, log paths in the logs folder; --write into ~/Library/LaunchAgents', async () => {
    const { root, home, env, text } = setup();
    expect(await installCommand('launchd', { config: 'board.yml', interval: '90s', write: true, json: true }, env)).toBe(0);
    const result = JSON.parse(text());
    const file = path.join(home, 'Library/LaunchAgents/dev.atomic-board.board-tick.plist');
    expect(result.files.map((f: { file: string }) => f.file)).toEqual([file]);
    const plist = fs.readFileSync(file, 'utf8');
    expect(plist).toContain('<key>StartInterval</key>\n  <integer>90</integer>');
    expect(plist).toContain(`<string>${process.execPath}</string>`);
    expect(plist).toContain('<string>tick</string>');
    expect(plist).toContain(`<string>${path.join(root, 'board.yml')}</string>`);
    expect(plist).toContain(`<string>${path.join(root, 'logs')}/board-tick.err.log</string>`);
    expect(plist).toContain('<key>AbandonProcessGroup</key>');
    expect(result.commands[0]).toBe(`launchctl load -w ${file}`);
  });

  it('refuses an unknown manager, a bad interval, and a config that does not load', async () => {
    const { env } = setup();
    await expect(installCommand('cron', { config: 'board.yml' }, env)).rejects.toThrow(/systemd or launchd/);
    await expect(installCommand('systemd', { config: 'board.yml', interval: 'often' }, env)).rejects.toThrow(/--interval/);
    await expect(installCommand('systemd', { config: 'missing.yml' }, env)).rejects.toThrow(/not found/);
  });

  it("quotes ExecStart arguments the way systemd reads them", () => {
    expect(systemdQuote('/a b/c')).toBe('"/a b/c"');
    expect(systemdQuote('100%')).toBe('"100%%"');
    expect(systemdQuote('$HOME')).toBe('"$$HOME"');
    expect(systemdQuote('say "hi"')).toBe('"say \\"hi\\""');
  });
});
