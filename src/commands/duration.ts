import { UsageError } from '../errors.js';

const UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A command-line duration: `500ms`, `30s`, `5m`, `2h`, `1d`. Bad text is bad usage (exit 2). */
export function parseDurationOption(flag: string, text: string, minMs = 1): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag}: "${text}" is not a duration (like 500ms, 30s, 5m, 2h or 1d)`);
  const ms = Number(m[1]) * UNITS[m[2] as keyof typeof UNITS];
  if (ms < minMs) throw new UsageError(`${flag}: ${text} is too short (at least ${minMs}ms)`);
  return ms;
}
