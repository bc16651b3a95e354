import type { JournalEvent } from './event.js';
import type { TraceNode } from './graph.js';

/** Text safe inside a Mermaid `["…"]` label: quotes and the characters Mermaid parses become entities. */
function label(text: string): string {
  return text.replace(/&/g, '#amp;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;').replace(/[\r\n]+/g, ' ');
}

/**
 * A trace as a Mermaid flowchart (GitHub and Obsidian render it in a ```mermaid block): one node
 * per event, an arrow from each cause to what it caused, and one subgraph per card so a flow's
 * cards read as lanes. Pure: trees in, text out.
 */
export function traceMermaid(trees: readonly TraceNode[], describe: (e: JournalEvent) => string): string {
  const ids = new Map<string, string>();
  const byCard = new Map<string, string[]>();
  const edges: string[] = [];
  const nodeId = (e: JournalEvent) => {
    let id = ids.get(e.id);
    if (!id) ids.set(e.id, (id = `e${ids.size + 1}`));
    return id;
  };
  const walk = (node: TraceNode, parent?: string) => {
    const id = nodeId(node.event);
    const card = node.event.card ?? '(no card)';
    byCard.set(card, [...(byCard.get(card) ?? []), `    ${id}["${label(describe(node.event))}"]`]);
    if (parent) edges.push(`  ${parent} --> ${id}`);
    for (const child of node.children) walk(child, id);
  };
  for (const tree of trees) walk(tree);
  const lanes = [...byCard.entries()].map(([card, nodes], i) => [`  subgraph c${i + 1}["${label(card)}"]`, ...nodes, '  end'].join('\n'));
  return `flowchart TD\n${lanes.join('\n')}\n${edges.join('\n')}\n`;
}
