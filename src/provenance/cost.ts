import fs from 'node:fs/promises';
import type { HarnessCost } from '../schema/harness.js';
import type { RunCost, RunManifest } from './manifest.js';
import { localDate } from '../core/time.js';
import { BoardFileError, openBoardRead } from '../vault/board-file.js';

/** How much of a log's end is searched for its last JSON line. */
const TAIL_BYTES = 256 * 1024;

/** `usage.total_tokens`, `$.usage.total_tokens`, `choices[0].usage.cost`: a value or undefined. */
export function jsonPath(value: unknown, expression: string): unknown {
  const steps = expression
    .replace(/^\$\.?/, '')
    .split(/\.|\[(\d+)\]/)
    .filter((s) => s !== undefined && s !== '');
  let at: unknown = value;
  for (const step of steps) {
    if (at === null || typeof at !== 'object') return undefined;
    at = Array.isArray(at) && /^\d+$/.test(step) ? at[Number(step)] : (at as Record<string, unknown>)[step];
  }
  return at;
}

/** The last line of a text that parses as a JSON object. */
export function lastJsonLine(text: string): Record<string, unknown> | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // Not JSON after all: keep looking upwards.
    }
  }
  return undefined;
}

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;

/** Read a run's cost from the text of its log, as its harness declares. */
export function costFromText(text: string, spec: HarnessCost): RunCost {
  const line = lastJsonLine(text);
  if (!line) return { error: 'no JSON line in the worker output' };
  const cost: { tokens?: number; usd?: number; error?: string } = {};
  const missing: string[] = [];
  if (spec.tokens) {
    const tokens = asNumber(jsonPath(line, spec.tokens));
    if (tokens === undefined) missing.push(`tokens (${spec.tokens})`);
    else cost.tokens = tokens;
  }
  if (spec.usd) {
    const usd = asNumber(jsonPath(line, spec.usd));
    if (usd === undefined) missing.push(`usd (${spec.usd})`);
    else cost.usd = usd;
  }
  if (missing.length > 0) cost.error = `not a number in the last JSON line: ${missing.join(', ')}`;
  return cost;
}

export async function costFromLog(logFile: string, spec: HarnessCost): Promise<RunCost> {
  let handle: fs.FileHandle;
  try {
    handle = await openBoardRead(logFile);
  } catch (error) {
    if (error instanceof BoardFileError) return { error: `log unreadable: ${error.message}` };
    return { error: `log unreadable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return costFromText(buffer.toString('utf8'), spec);
  } finally {
    await handle.close();
  }
}

export type CostGrouping = 'profile' | 'flow' | 'day' | 'model' | 'harness' | 'card' | 'run';

export interface CostRow {
  readonly key: string;
  readonly runs: number;
  /** Runs that recorded a cost. */
  readonly costed: number;
  readonly tokens: number;
  readonly usd: number;
}

/**
 * Sum recorded costs by profile, flow (cards without one under `(no flow)`), day of the claim,
 * model or harness. A director's own card carries no `flow`: its runs count under the flow its
 * children name it `director` of.
 */
export function sumCosts(manifests: readonly RunManifest[], by: CostGrouping): CostRow[] {
  const rows = new Map<string, { runs: number; costed: number; tokens: number; usd: number }>();
  const directedFlow = new Map<string, string>();
  for (const m of manifests) if (m.flow !== undefined && m.director !== undefined) directedFlow.set(m.director.replace(/^.*\//, ''), m.flow);
  for (const m of manifests) {
    const key = by === 'profile' ? m.profile : by === 'flow' ? (m.flow ?? directedFlow.get(m.card) ?? '(no flow)') : by === 'day' ? localDate(new Date(m.start ?? m.claim)) : by === 'model' ? m.model : by === 'card' ? m.card : by === 'run' ? m.run : m.harness;
    const row = rows.get(key) ?? { runs: 0, costed: 0, tokens: 0, usd: 0 };
    row.runs += 1;
    if (m.usage) {
      // Measured at the credential proxy: it wins over what the worker's last line said.
      row.costed += 1;
      row.tokens += m.usage.input_tokens + m.usage.output_tokens;
      row.usd += m.usage.usd ?? m.cost?.usd ?? 0;
    } else if (m.cost && (m.cost.tokens !== undefined || m.cost.usd !== undefined)) {
      row.costed += 1;
      row.tokens += m.cost.tokens ?? 0;
      row.usd += m.cost.usd ?? 0;
    }
    rows.set(key, row);
  }
  return [...rows.entries()].map(([key, r]) => ({ key, ...r })).sort((a, b) => (a.key < b.key ? -1 : 1));
}
