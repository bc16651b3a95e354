import { EXIT, formatProblem } from '../errors.js';
import { gatherLintInput } from '../lint/gather.js';
import { lint } from '../lint/index.js';
import { askModelCatalogs, checkModelCatalogs } from '../lint/models.js';
import type { CommandEnv, GlobalOptions } from './common.js';
import { forTerminal } from '../format/control.js';

/**
 * `board lint`: the design-time checks, for a person or a vault's own CI. Exit 1 on any finding,
 * 0 when clean, 2 when the config itself is unusable.
 */
export async function lintCommand(options: GlobalOptions, env: CommandEnv): Promise<number> {
  const input = await gatherLintInput({ config: options.config, vault: options.vault, cwd: env.cwd, env: env.env });
  // Plus advice from the installed CLIs (models they do not know), as warnings: never fails lint.
  const findings = [...lint(input), ...checkModelCatalogs(input, askModelCatalogs(input))];
  const errors = findings.filter((f) => f.severity !== 'warning');
  const warnings = findings.length - errors.length;
  if (options.json) {
    env.stdout(`${JSON.stringify({ ok: errors.length === 0, vault: input.vault, checked: counts(input), findings }, null, 2)}\n`);
  } else if (findings.length === 0) {
    const c = counts(input);
    env.stdout(`lint: clean — ${c.profiles} profiles, ${c.cards} cards, ${c.harnesses} harnesses and the models table checked\n`);
  } else {
    const tally = [errors.length > 0 ? plural(errors.length, 'finding') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(', ');
    env.stdout(`${findings.map((f) => forTerminal(`${f.severity === 'warning' ? 'warning: ' : ''}${formatProblem(f)}  [${f.check}]`)).join('\n')}\n\nlint: ${tally}\n`);
  }
  return errors.length === 0 ? EXIT.ok : EXIT.failure;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function counts(input: Parameters<typeof lint>[0]) {
  return { profiles: input.profiles.length, cards: input.cards.length, harnesses: input.harnesses.length };
}
