import path from 'node:path';
import { substitute } from '../core/compose.js';
import type { SandboxDeclared } from '../schema/harness.js';
import { isInside } from './policy.js';

/** The board's own files, which no harness may open to its workers. */
export interface BoardPlaces {
  readonly vault: string;
  readonly harnessesDir: string;
  readonly configFile: string;
  readonly privateEnvFile?: string | undefined;
  readonly logsDir: string;
}

export interface DeclaredProblem {
  /** `sandbox.read[0]`, `sandbox.write[1]`. */
  readonly field: string;
  readonly reason: string;
}

/**
 * A harness's `sandbox: { read, write }` made concrete for this board: `{vault}` and `{harnesses}`
 * substituted, each path judged (absolute, existing, not the config, the private env file, the
 * logs folder or KANBAN/, nor inside one of them). Pure but for `exists`.
 */
export function resolveDeclared(declared: SandboxDeclared, board: BoardPlaces, exists: (p: string) => boolean): { declared: SandboxDeclared; problems: DeclaredProblem[] } {
  const problems: DeclaredProblem[] = [];
  const own: { path: string; what: string }[] = [
    { path: board.configFile, what: "the board's config file" },
    ...(board.privateEnvFile !== undefined ? [{ path: board.privateEnvFile, what: 'the private env file' }] : []),
    { path: board.logsDir, what: "the board's logs folder" },
    { path: path.join(board.vault, 'KANBAN'), what: 'KANBAN/ (the board writes it, workers do not)' },
  ];
  const resolve = (list: readonly string[], key: 'read' | 'write'): string[] =>
    list.flatMap((raw, i) => {
      const field = `sandbox.${key}[${i}]`;
      const p = substitute(raw, { vault: board.vault, harnesses: board.harnessesDir });
      if (!path.isAbsolute(p)) {
        problems.push({ field, reason: `${raw} is not an absolute path` });
        return [];
      }
      const normal = path.resolve(p);
      const hit = own.find((o) => isInside(path.resolve(o.path), normal));
      if (hit) {
        problems.push({ field, reason: `${raw} is ${hit.what}${path.resolve(hit.path) === normal ? '' : ' or inside it'}: a worker may not see it` });
        return [];
      }
      if (!exists(normal)) {
        problems.push({ field, reason: `${raw} does not exist${normal !== raw ? ` (${normal})` : ''}` });
        return [];
      }
      return [normal];
    });
  return { declared: { read: resolve(declared.read, 'read'), write: resolve(declared.write, 'write'), hosts: [...declared.hosts] }, problems };
}
