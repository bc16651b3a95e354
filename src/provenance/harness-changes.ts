import { canonicalJson } from './record-run.js';

/**
 * How the harness installed now differs from the one a run recorded, field by field. Pure. A
 * replay runs only the installed harness (a definition read from the store is data to compare,
 * never a command to run), so it says what changed since instead.
 */

export interface HarnessChange {
  readonly field: string;
  /** The recorded value; absent when the field was not set. */
  readonly recorded?: unknown;
  /** The installed value; absent when the field is not set. */
  readonly installed?: unknown;
}

/** Every top-level field whose value differs (canonical JSON), installed fields first, in their order. */
export function harnessChanges(recorded: Readonly<Record<string, unknown>>, installed: Readonly<Record<string, unknown>>): HarnessChange[] {
  const fields = [...Object.keys(installed), ...Object.keys(recorded).filter((k) => !Object.hasOwn(installed, k))];
  const text = (v: unknown) => (v === undefined ? undefined : canonicalJson(v));
  const changes: HarnessChange[] = [];
  for (const field of fields) {
    const r = Object.hasOwn(recorded, field) ? recorded[field] : undefined;
    const i = Object.hasOwn(installed, field) ? installed[field] : undefined;
    if (text(r) === text(i)) continue;
    changes.push({ field, ...(r !== undefined ? { recorded: r } : {}), ...(i !== undefined ? { installed: i } : {}) });
  }
  return changes;
}

/** One line per change (`command: ["a"] → ["b"]`), or the one word "identical". */
export function renderHarnessChanges(changes: readonly HarnessChange[]): string[] {
  if (changes.length === 0) return ['identical'];
  const shown = (v: unknown) => {
    if (v === undefined) return '(not set)';
    const s = JSON.stringify(v);
    return s.length > 120 ? `${s.slice(0, 120)}… (${s.length} chars)` : s;
  };
  return changes.map((c) => `${c.field}: ${shown(c.recorded)} → ${shown(c.installed)}`);
}
