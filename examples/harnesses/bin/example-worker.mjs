#!/usr/bin/env node
// A model-free worker for the example vault. It does each card's work deterministically and
// keeps the card protocol with the board's own verbs (never by editing YAML):
//   board card show  → the card's fields as JSON (never parsing YAML itself)
//   board card note  → a progress milestone right after admission
//   board card close → paths filled, `closed` set, closing Record line, moved to done/
//   board card fail  → on any failure, with the reason; no questions in card mode
// Directors (briefing-editor) also use:
//   board card new   → ONE child card, with --flow and --director
//   board card yield → sleep in pending/ on inputs.dependent_task until the child is in done/
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const { BOARD_CARD: card, BOARD_VAULT: vault, BOARD_BIN: boardBin } = process.env;
if (!card || !vault || !boardBin) {
  console.error('example-worker: run me from `board tick` (BOARD_CARD, BOARD_VAULT and BOARD_BIN are missing)');
  process.exit(2);
}

/** `board card …` through the very CLI that spawned this worker; its stdout is returned. */
function board(...args) {
  const result = spawnSync(process.execPath, [boardBin, 'card', ...args], { encoding: 'utf8', env: process.env });
  process.stdout.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  if (result.status !== 0) throw new Error(`board card ${args[0]} exited ${result.status}: ${(result.stderr ?? '').trim()}`);
  return result.stdout.trim();
}

/**
 * A card's fields, as the board reads them (`board card show --json`): the worker never parses
 * YAML itself (a BOM, CRLF, quoting or block lists are the board's problem) and never writes front
 * matter. `ref` is a card file name or a vault-relative path.
 */
function show(ref) {
  const result = spawnSync(process.execPath, [boardBin, 'card', 'show', ref, '--json'], { encoding: 'utf8', env: process.env });
  if (result.status !== 0) throw new Error(`board card show ${ref} exited ${result.status}: ${(result.stderr ?? '').trim()}`);
  return JSON.parse(result.stdout).fields;
}

/** Each input slot's path (the first, when a slot names a list). */
function inputs(fields) {
  return Object.fromEntries(Object.entries(fields.inputs ?? {}).map(([slot, value]) => [slot, Array.isArray(value) ? value[0] : value]));
}

const read = (rel) => fs.readFileSync(path.join(vault, rel), 'utf8');
const stem = path.basename(card, '.md');
const self = path.basename(card);

function write(text, output) {
  fs.mkdirSync(path.dirname(path.join(vault, output)), { recursive: true });
  fs.writeFileSync(path.join(vault, output), text);
  return output;
}

const work = {
  summarizer(fields) {
    const notes = Object.values(inputs(fields)).map((p) => ({ path: p, text: read(p) }));
    const lines = [];
    for (const { text: t } of notes) {
      const paragraphs = t.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith('#'));
      for (const p of paragraphs) {
        const keep = p.split('\n').filter((l) => /^(Decision|Action):/.test(l));
        lines.push(...(keep.length ? keep : [p.split(/(?<=\.)\s/)[0]]));
      }
    }
    return { output: `# Summary\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`, of: notes.map((n) => n.path) };
  },
  'digest-writer'(fields) {
    const notes = Object.values(inputs(fields)).map((p) => ({ path: p, text: read(p) }));
    const items = notes.flatMap(({ text: t }) => t.split('\n').filter((l) => l.startsWith('- ')));
    return { output: `# Digest\n\n${items.reverse().join('\n')}\n`, of: notes.map((n) => n.path) };
  },
  'word-counter'(fields) {
    const notes = Object.values(inputs(fields)).map((p) => ({ path: p, text: read(p) }));
    const rows = notes.map(({ path: p, text: t }) => `| ${p} | ${t.split(/\s+/).filter(Boolean).length} |`);
    return { output: `# Word count\n\n| file | words |\n|---|---|\n${rows.join('\n')}\n`, of: notes.map((n) => n.path) };
  },
  'action-extractor'(fields) {
    const notes = inputs(fields).notes;
    if (!notes) throw new Error('no `notes` input: never invent raw material');
    const actions = read(notes).split('\n').filter((l) => /^Action:/.test(l)).map((l) => l.replace(/^Action:\s*/, ''));
    if (actions.length === 0) return { empty: `no line of ${notes} starts with "Action:": nothing to extract`, of: [notes] };
    return { output: `# Action items\n\n${actions.map((a) => `- ${a}`).join('\n')}\n`, of: [notes] };
  },
  'briefing-writer'(fields) {
    const actions = inputs(fields).actions;
    if (!actions) throw new Error('no `actions` input: never invent raw material');
    const items = read(actions).split('\n').filter((l) => l.startsWith('- '));
    return { output: `# Weekly briefing\n\n${items.length} action item(s) this week.\n\n${items.join('\n')}\n`, of: [actions] };
  },
};

/** Children of this director's card that have not closed yet (in pending/ or in-progress/). */
function openChild() {
  for (const folder of ['pending', 'in-progress']) {
    const dir = path.join(vault, 'KANBAN', folder);
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (!name.endsWith('.md') || name.startsWith('.') || name === self) continue;
      if (show(name).director === self) return name;
    }
  }
  return undefined;
}

/** The director: one child at a time, state rebuilt from the board on every wake-up. */
const FLOW = 'weekly-briefing';
function briefingEditor(fields) {
  const open = openChild();
  if (open) {
    // Golden rule: never a second child while one is open; just go back to sleep on it.
    board('note', card, `child ${open} is still open: yielding until it closes, creating nothing.`);
    board('yield', card, '--until', open);
    return;
  }
  const dependent = inputs(fields).dependent_task;
  if (!dependent) {
    const notes = inputs(fields).notes;
    if (!notes) throw new Error('no `notes` input: the flow has no raw material');
    board('note', card, `admission passed; step 1 of ${FLOW}: asking action-extractor for the action items of ${notes}.`);
    const child = board('new', '--function', 'extract', '--request', `Extract the action items from ${notes}`, '--recipient', 'action-extractor',
      '--input', `notes=${notes}`, '--flow', FLOW, '--director', self);
    board('yield', card, '--until', child);
    return;
  }
  // Woken: the child named by dependent_task is in done/. Wiring rule: its paths fill the next slot.
  const child = show(dependent);
  const childPaths = child.paths ?? [];
  const step = child.function;
  if (childPaths.length === 0) {
    // An unjustified empty close never gets here (the board blocks this card); a justified one ends the flow.
    board('note', card, `child ${path.basename(dependent)} closed empty with a justification: the flow ends here, no further step is invented.`);
    board('close', card, '--empty', `step "${step}" (${path.basename(dependent)}) legitimately produced nothing; see its Record`);
    return;
  }
  if (step === 'extract') {
    board('note', card, `woke on ${path.basename(dependent)} (action items at ${childPaths[0]}); step 2 of ${FLOW}: asking briefing-writer for the briefing.`);
    const child = board('new', '--function', 'write', '--request', `Write the weekly briefing from ${childPaths[0]}`, '--recipient', 'briefing-writer',
      '--input', `actions=${childPaths[0]}`, '--flow', FLOW, '--director', self);
    board('yield', card, '--until', child);
    return;
  }
  board('note', card, `woke on ${path.basename(dependent)}: the briefing is at ${childPaths.join(', ')}; ${FLOW} is complete.`);
  board('close', card, ...childPaths.flatMap((p) => ['--path', p]));
}

try {
  const fields = show(card);
  const agent = fields.agent;
  if (agent === 'briefing-editor') {
    briefingEditor(fields);
  } else {
    const doer = work[agent];
    if (!doer) throw new Error(`this example worker has no procedure for profile "${agent}"`);
    const result = doer(fields);
    board('note', card, `admission passed; working on ${result.of.join(', ') || 'no inputs'} (model-free example worker).`);
    if (result.empty !== undefined) {
      board('close', card, '--empty', result.empty);
    } else {
      const output = write(result.output, fields.destination ?? `outputs/${stem}.md`);
      board('close', card, '--path', output);
    }
  }
} catch (error) {
  console.error(`example-worker: ${error.message}`);
  try {
    // The failure policy is the profile's: the director declares `failure_policy: block` (a human
    // decides); a worker fails the card back to pending/ for another attempt.
    const agent = show(card).agent;
    board(agent === 'briefing-editor' ? 'block' : 'fail', card, String(error.message));
  } catch {
    // The board reclaims the card when this process exits without closing it.
  }
  process.exit(1);
}
