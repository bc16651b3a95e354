import { forTerminal } from '../format/control.js';

/**
 * Why a worker ended without closing its card, from the end of its output: the tail a person
 * reads first, and one line that names the failure (a traceback's last line, an `error:` line).
 * Pure: the shell reads the log and hands the private values in.
 *
 * Bounded (the last `TAIL_BYTES`, at most `TAIL_LINES` lines), escaped (no control character
 * reaches a card, a record or a terminal raw) and scrubbed (the private values the supervisor
 * holds, and anything shaped like a key, are replaced before the text is kept anywhere).
 */

export const TAIL_BYTES = 4096;
export const TAIL_LINES = 20;
export const REASON_MAX = 200;
const SCRUBBED = '<redacted>';

/** A line that names a failure: the heuristic's first choice over a plain last line. */
const ERROR_LINE = /error|exception|traceback|refused|denied|failed|fatal/i;
/** Key-shaped text: `sk-…` API keys, `Bearer …` tokens, `api_key=…`/`token: …` assignments. */
const KEY_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/\bsk-[A-Za-z0-9_-]{8,}/g, SCRUBBED],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${SCRUBBED}`],
  [/\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|token)["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi, `$1${SCRUBBED}`],
];

/** Private values and key-shaped text replaced; values under 4 characters are left (they would scrub everything). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first: a value that contains another is replaced whole.
  for (const secret of [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(secret).join(SCRUBBED);
  for (const [shape, replacement] of KEY_SHAPES) out = out.replace(shape, replacement);
  return out;
}

export interface FailureTail {
  /** The last lines of the output, escaped and scrubbed, joined by newlines (undefined when there was none). */
  readonly tail?: string;
  /** One line, at most REASON_MAX characters (undefined when the output was empty). */
  readonly reason?: string;
}

/** Cut to `max` characters on one line, with an ellipsis when cut. */
export function oneLine(text: string, max = REASON_MAX): string {
  const line = forTerminal(text.trim());
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * The tail and the reason line of a worker's output. `text` is the end of its log (the shell
 * reads at most TAIL_BYTES); `skip` drops lines that are not the worker's (the supervisor's own
 * notes in the same log). The first line is dropped when the text was cut mid-line.
 */
export function failureTail(text: string, options: { readonly secrets?: readonly string[]; readonly cut?: boolean; readonly skip?: (line: string) => boolean } = {}): FailureTail {
  let lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (options.cut && lines.length > 1) lines = lines.slice(1);
  const skip = options.skip;
  lines = lines.filter((l) => !(skip && skip(l)));
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  lines = lines.slice(-TAIL_LINES).map((l) => forTerminal(scrubSecrets(l, options.secrets ?? [])));
  if (lines.length === 0) return {};
  const nonEmpty = lines.filter((l) => l.trim() !== '');
  const errorLine = [...nonEmpty].reverse().find((l) => ERROR_LINE.test(l));
  const reason = errorLine ?? nonEmpty[nonEmpty.length - 1];
  return { tail: lines.join('\n'), ...(reason !== undefined ? { reason: oneLine(reason) } : {}) };
}
