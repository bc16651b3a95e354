#!/usr/bin/env node
// A model-free worker for the example vault. It does each card's work deterministically and
// closes the card the standard's way, with the board's own verbs (never by editing YAML):
//   board card note  → a progress milestone right after admission
//   board card close → paths filled, `closed` set, closing Record line, moved to done/
// On any failure it calls `board card fail` with the reason and dies: no questions in card mode.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const { BOARD_CARD: card, BOARD_VAULT: vault, BOARD_BIN: boardBin } = process.env;
if (!card || !vault || !boardBin) {
  console.error('example-worker: run me from `board tick` (BOARD_CARD, BOARD_VAULT and BOARD_BIN are missing)');
  process.exit(2);
}

function board(...args) {
  const result = spawnSync(process.execPath, [boardBin, 'card', ...args], { encoding: 'utf8', env: process.env });
  process.stdout.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  if (result.status !== 0) throw new Error(`board card ${args[0]} exited ${result.status}`);
  return result.stdout.trim();
}

/** The few front matter fields this worker reads; it never writes front matter itself. */
function field(text, name) {
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(text);
  return m ? m[1].replace(/^["']|["']$/g, '').trim() : undefined;
}

function inputs(text) {
  const block = /^inputs:\s*\n((?:[ \t]+.*\n?)*)/m.exec(text);
  if (!block) return [];
  return [...block[1].matchAll(/^[ \t]+([\w-]+):[ \t]*(\S.*)$/gm)].map((m) => ({ slot: m[1], path: m[2].trim() }));
}

const work = {
  summarizer(notes) {
    const lines = [];
    for (const { text } of notes) {
      const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith('#'));
      for (const p of paragraphs) {
        const keep = p.split('\n').filter((l) => /^(Decision|Action):/.test(l));
        lines.push(...(keep.length ? keep : [p.split(/(?<=\.)\s/)[0]]));
      }
    }
    return `# Summary\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`;
  },
  'digest-writer'(notes) {
    const items = notes.flatMap(({ text }) => text.split('\n').filter((l) => l.startsWith('- ')));
    return `# Digest\n\n${items.reverse().join('\n')}\n`;
  },
  'word-counter'(notes) {
    const rows = notes.map(({ path: p, text }) => `| ${p} | ${text.split(/\s+/).filter(Boolean).length} |`);
    return `# Word count\n\n| file | words |\n|---|---|\n${rows.join('\n')}\n`;
  },
};

try {
  const text = fs.readFileSync(card, 'utf8');
  const agent = field(text, 'agent');
  const doer = work[agent];
  if (!doer) throw new Error(`this example worker has no procedure for profile "${agent}"`);
  const notes = inputs(text).map(({ path: p }) => ({ path: p, text: fs.readFileSync(path.join(vault, p), 'utf8') }));
  board('note', card, `${agent}: admission passed; working on ${notes.map((n) => n.path).join(', ') || 'no inputs'} (model-free example worker).`);
  const stem = path.basename(card, '.md');
  const output = field(text, 'destination') ?? `outputs/${stem}.md`;
  fs.mkdirSync(path.dirname(path.join(vault, output)), { recursive: true });
  fs.writeFileSync(path.join(vault, output), doer(notes));
  board('close', card, '--path', output);
} catch (error) {
  console.error(`example-worker: ${error.message}`);
  try {
    board('fail', card, String(error.message));
  } catch {
    // The board reclaims the card when this process exits without closing it.
  }
  process.exit(1);
}
