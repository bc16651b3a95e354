import { JournalIndex, openJournal, renderTrace, traceCard, type JournalEvent, type TraceNode } from '../journal/index.js';
import { prepare, type CommandEnv, type GlobalOptions } from './common.js';
import { cardName, eventSaid } from './log.js';
import { terminalLines } from '../format/control.js';
import { traceMermaid } from '../journal/mermaid.js';

function short(e: JournalEvent): string {
  const time = e.at.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z');
  const who = e.profile && e.profile !== e.actor ? `${e.actor} → ${e.profile}` : e.actor;
  return `${e.kind} ${e.card ?? ''} [${who}] ${time}${e.detail ? ` — ${e.detail}` : ''}${eventSaid(e)}${e.pid !== undefined ? ` (pid ${e.pid})` : ''}`;
}

function toJson(node: TraceNode): unknown {
  return { ...node.event, own: node.own, children: node.children.map(toJson) };
}

/**
 * `board trace CARD`: the causal chain the card belongs to, from the first input (a human's
 * card, a schedule) through claims, children and closes to the last delivery. Events of other
 * cards on the chain are marked with `·`.
 */
export interface TraceOptions extends GlobalOptions {
  /** The chain as a Mermaid flowchart, for a Markdown note (Obsidian, GitHub). */
  readonly mermaid?: boolean;
}

export async function traceCommand(ref: string, options: TraceOptions, env: CommandEnv): Promise<number> {
  const { board } = await prepare(options, env);
  const card = cardName(ref);
  const { events, problems } = await openJournal(board.config.logsDir).read();
  for (const p of problems) env.logger.warn({ file: p.file, line: p.line, torn: p.torn }, `journal: ${p.reason}`);
  const trees = traceCard(new JournalIndex(events), card);
  if (options.json) {
    env.stdout(`${JSON.stringify({ card, trees: trees.map(toJson), problems }, null, 2)}\n`);
    return trees.length > 0 ? 0 : 1;
  }
  if (trees.length === 0) {
    env.stdout(`no journal events for ${card}\n`);
    return 1;
  }
  if (options.mermaid) {
    env.stdout(traceMermaid(trees, (e) => `${e.kind} [${e.profile ?? e.actor}] ${e.at.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z')}`));
    return 0;
  }
  env.stdout(`trace of ${card} (· = another card on the same chain)\n\n${terminalLines(renderTrace(trees, short))}`);
  return 0;
}
