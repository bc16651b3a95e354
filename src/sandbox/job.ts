import fs from 'node:fs';
import type { Harness } from '../schema/harness.js';
import type { JobSandbox } from './confine.js';
import { resolveDeclared, type BoardPlaces } from './declared.js';
import { sandboxMode } from './mode.js';

/**
 * The sandbox a run's job carries, decided at dispatch from the harness and the board: confined
 * with its widening made concrete, or why not. A declared path that does not hold is a reason not
 * to claim (the plan already made such a card wait: src/sandbox/start-problem.ts).
 */
export function jobSandbox(harness: Harness, board: BoardPlaces, env: Readonly<Record<string, string | undefined>>): { ok: true; sandbox: JobSandbox } | { ok: false; reason: string } {
  const mode = sandboxMode(harness, env);
  if (!mode.confined) return { ok: true, sandbox: { confined: false, why: mode.why } };
  const { declared, problems } = resolveDeclared(mode.declared, board, (p) => fs.existsSync(p));
  if (problems.length > 0) return { ok: false, reason: `its ${problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}` };
  return {
    ok: true,
    sandbox: {
      confined: true,
      declared,
      vault: board.vault,
      harnessesDir: board.harnessesDir,
      configFile: board.configFile,
      ...(board.privateEnvFile !== undefined ? { privateEnvFile: board.privateEnvFile } : {}),
      logsDir: board.logsDir,
    },
  };
}
