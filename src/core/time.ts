/** The schema's TIMESTAMP (schema/card.ts), the same language, with its parts captured. */
const TIMESTAMP_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A card timestamp as epoch milliseconds. Without an offset it is local time, the way a person
 * writing "2026-08-20 13:56" means it. Returns NaN for text that is not a timestamp.
 */
export function parseTimestamp(text: string): number {
  const m = TIMESTAMP_PARTS.exec(text);
  if (!m) return Number.NaN;
  // Indexed, not destructured: destructuring a match walks an iterator, thousands of times a round.
  const y = m[1]!;
  const mo = m[2]!;
  const d = m[3]!;
  const h = m[4] ?? '0';
  const mi = m[5] ?? '0';
  const s = m[6] ?? '0';
  const frac = m[7] ?? '';
  const zone = m[8];
  const ms = frac ? Math.round(Number(frac) * 1000) : 0;
  if (zone === undefined) {
    return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms).getTime();
  }
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  if (zone === 'Z') return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  return base - sign * offset;
}

/** A duration for a person: seconds under a minute ("45s", never "0m"), then minutes, hours, days. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.floor(ms / 1000))}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
  return `${Math.floor(hours / 24)}d`;
}

/** Local calendar date as YYYY-MM-DD. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
