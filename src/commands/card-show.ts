import { showCard, type ShownCard } from '../card/show.js';
import { cardContext } from './card.js';
import type { CommandEnv, GlobalOptions } from './common.js';

/** `board card show CARD`: fields and Record, as JSON with `--json` (for workers), else for a person. */
export async function cardShowCommand(ref: string, options: GlobalOptions, env: CommandEnv): Promise<number> {
  const shown = await showCard(await cardContext(options, env), ref);
  env.stdout(options.json ? `${JSON.stringify(shown, null, 2)}\n` : showText(shown));
  return 0;
}

function showText(s: ShownCard): string {
  const fields = Object.entries(s.fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const record = s.record.flatMap((e) => [`  ${e.time}`, ...e.lines.map((l) => `    ${l}`)]);
  return `${s.folder}/${s.card}\n${fields.join('\n')}\n${record.length > 0 ? `\nRecord\n${record.join('\n')}\n` : ''}`;
}
