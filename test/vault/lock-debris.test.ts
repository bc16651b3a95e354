import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeBoard, profile } from '../helpers/vault.js';

/** Lock debris end to end (issue 12): the built CLI's tick fails naming it, status shows it. */
const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

function board(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.runIf(fs.existsSync(CLI))('lock debris at KANBAN/.board.lock', () => {
  const cases: [string, (lock: string) => void, RegExp][] = [
    ['a dangling symbolic link', (lock) => fs.symlinkSync('/nonexistent/abt-lock', lock), /is a dangling symbolic link \(to \/nonexistent\/abt-lock\)/],
    ['a regular file', (lock) => fs.writeFileSync(lock, ''), /is a regular file, not the board's lock folder/],
  ];
  for (const [what, plant, message] of cases) {
    it(`${what}: tick exits 1 naming the path and what to do; status shows it; removing it heals`, () => {
      const root = makeBoard({ 'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [draft]') });
      const lock = path.join(root, 'vault/KANBAN/.board.lock');
      plant(lock);
      const tick = board(root, 'tick');
      expect(tick.code).toBe(1);
      expect(tick.stderr).toMatch(message);
      expect(tick.stderr).toContain(lock);
      expect(tick.stderr).toContain(`rm -rf '${lock}'`);
      const status = board(root, 'status');
      expect(status.stdout).toMatch(/round lock: BROKEN, no round can run: .*\.board\.lock is a/);
      const json = JSON.parse(board(root, 'status', '--json').stdout) as { lockProblem?: string };
      expect(json.lockProblem).toMatch(message);

      fs.rmSync(lock, { force: true });
      expect(board(root, 'tick').code).toBe(0);
      expect(board(root, 'status').stdout).not.toContain('round lock: BROKEN');
    });
  }
});
