import type { Plan } from '../core/types.js';
import type { Transition } from '../round/context.js';
import { formatProblem } from '../errors.js';
import { forTerminal } from '../format/control.js';

/** The contract's JSON shape (CONTRACT "Commands"), plus the declared problems. */
export function planJson(plan: Plan): Record<string, unknown> {
  return {
    now: plan.now,
    dispatch: plan.dispatch.map((d) => ({ card: d.card, profile: d.profile, harness: d.harness, model: d.model, via: d.via, descriptor: d.descriptor })),
    waiting: plan.waiting,
    blocked: plan.blocked,
    scheduled: plan.scheduled.map((s) => ({ template: s.template, instance: s.instance })),
    zombies: plan.zombies.map((z) => ({ card: z.card, kind: z.kind, reason: z.reason, attempts: z.attempts, ...(z.block ? { blocked: true } : {}) })),
    ...(plan.repairs && plan.repairs.length > 0 ? { repairs: plan.repairs } : {}),
    invalid: plan.invalid,
    profiles: plan.profiles,
    problems: [...plan.profileProblems, ...plan.templateProblems],
    warnings: plan.warnings ?? [],
  };
}

/** The plan for a person: one section per outcome, each line naming the card and why. */
/** `executed`: the plan was carried out (tick), so its blocks are done, not to come (dry-run). */
export function planText(plan: Plan, heading: string, executed = false): string {
  const lines: string[] = [forTerminal(heading)];
  const section = (title: string, rows: string[]) => {
    if (rows.length === 0) return;
    // Card names, reasons and requests are a card's bytes: escaped, so none can drive the terminal.
    lines.push('', `${title} (${rows.length})`, ...rows.map((r) => `  ${forTerminal(r)}`));
  };
  section('scheduled', plan.scheduled.map((s) => `${s.instance}  ← ${s.template}`));
  section('dispatch', plan.dispatch.map((d) => `${d.card} → ${d.profile}  [harness ${d.harness}, model ${d.model}]${d.via === 'recipient' ? ' (recipient)' : ''}`));
  section('waiting', plan.waiting.map((w) => `${w.card} — ${w.reason}`));
  section('blocked', plan.blocked.map((b) => `${b.card} — ${b.new ? (executed ? 'blocked now: ' : 'will block: ') : ''}${b.reason}`));
  section('zombies', plan.zombies.map((z) => `${z.card} — ${z.reason}${z.block ? (executed ? ' (blocked: attempts exhausted)' : ' (will be blocked: attempts exhausted)') : ''}`));
  section('interrupted moves to repair', (plan.repairs ?? []).map((r) => `${r.card} — ${r.reason}`));
  section('unreadable cards and files that are not cards (not touched)', plan.invalid.map(formatProblem));
  section('profiles left out', plan.profileProblems.map(formatProblem));
  section('scheduled templates left out', plan.templateProblems.map(formatProblem));
  section('warnings', (plan.warnings ?? []).map(formatProblem));
  if (plan.dispatch.length + plan.waiting.length + plan.blocked.length + plan.scheduled.length + plan.zombies.length + plan.invalid.length === 0) {
    lines.push('', 'nothing to do: no pending cards, no claims to reclaim.');
  }
  return `${lines.join('\n')}\n`;
}

export function transitionsText(transitions: readonly Transition[]): string {
  if (transitions.length === 0) return '';
  const rows = transitions.map((t) => `  ${forTerminal(`${t.kind.padEnd(9)} ${t.card}${t.profile ? ` → ${t.profile}` : ''} — ${t.detail}`)}`);
  return `\ndone this round (${transitions.length})\n${rows.join('\n')}\n`;
}
