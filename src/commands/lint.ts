import { EXIT, formatProblem } from '../errors.js';
import { gatherLintInput } from '../lint/gather.js';
import { lint } from '../lint/index.js';
import { askModelCatalogs, checkModelCatalogs } from '../lint/models.js';
import type { CommandEnv, GlobalOptions } from './common.js';

/**
 * `board lint`: the design-time checks, for a person or a vault's own CI. Exit 1 on any finding,
 * 0 when clean, 2 when the config itself is unusable.
 */
export async function lintCommand(options: GlobalOptions, env: CommandEnv): Promise<number> {
  const input = await gatherLintInput({ config: options.config, vault: options.vault, cwd: env.cwd, env: env.env });
  const findings = lint(input);
  // Advice from the installed CLIs (models they do not know): printed, never fails lint.
  const warnings = checkModelCatalogs(input, askModelCatalogs(input));
  const warningLines = warnings.map((w) => `warning: ${w.file}: ${w.field}: ${w.reason}\n`).join('');
  if (options.json) {
    env.stdout(`${JSON.stringify({ ok: findings.length === 0, vault: input.vault, checked: counts(input), findings, warnings }, null, 2)}\n`);
  } else if (findings.length === 0) {
    env.stdout(warningLines);
    const c = counts(input);
    env.stdout(`lint: clean — ${c.profiles} profiles, ${c.cards} cards, ${c.harnesses} harnesses and the models table checked\n`);
  } else {
    env.stdout(warningLines);
    env.stdout(`${findings.map((f) => `${formatProblem(f)}  [${f.check}]`).join('\n')}\n\nlint: ${findings.length} finding${findings.length === 1 ? '' : 's'}\n`);
  }
  return findings.length === 0 ? EXIT.ok : EXIT.failure;
}

function counts(input: Parameters<typeof lint>[0]) {
  return { profiles: input.profiles.length, cards: input.cards.length, harnesses: input.harnesses.length };
}
