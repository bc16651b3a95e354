import { flowProblems, type CardPlace, type FlowCard } from '../core/flows.js';
import { isRecord, type Finding, type LintInput } from './types.js';

const PLACE: Readonly<Record<string, CardPlace>> = { pending: 'pending', 'in-progress': 'in-progress', done: 'done' };

/**
 * Deaf and circular flows (core/flows.ts): a pending director whose `dependent_task` names no card
 * anywhere, or directors waiting on each other. Either waits forever: an error.
 */
export function checkFlows(input: LintInput): Finding[] {
  const cards: FlowCard[] = [];
  const files = new Map<string, string>();
  for (const doc of input.cards) {
    if (doc.template) continue;
    const m = /^KANBAN\/([^/]+)\/([^/]+)$/.exec(doc.file);
    const place = m ? PLACE[m[1]!] : undefined;
    if (!m || !place) continue;
    const data = isRecord(doc.data) ? doc.data : {};
    cards.push({ name: m[2]!, place, dependentTasks: dependentTasks(data), ...(typeof data.director === 'string' ? { director: data.director } : {}) });
    files.set(m[2]!, doc.file);
  }
  for (const name of input.archivedNames ?? []) cards.push({ name, place: 'archive', dependentTasks: [] });
  return flowProblems(cards).map((p) => ({ check: 'flows', file: files.get(p.card) ?? p.card, field: 'inputs.dependent_task', reason: p.reason }));
}

function dependentTasks(data: Record<string, unknown>): string[] {
  const value = isRecord(data.inputs) ? data.inputs.dependent_task : undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string');
}
