#!/usr/bin/env node
// `npm run example`: copy the example board to ./example-run (the committed example stays
// clean), preview a round, run it, wait for the model-free workers, and show what moved.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const run = path.join(repo, 'example-run');
const cli = path.join(repo, 'dist', 'cli.js');
const config = path.join(run, 'board.yml');

fs.rmSync(run, { recursive: true, force: true });
fs.cpSync(path.join(repo, 'examples'), run, { recursive: true });

function board(...args) {
  console.log(`\n$ board ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [cli, ...args, '--config', config], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  process.stdout.write(result.stdout);
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    process.exit(result.status ?? 1);
  }
  return result.stdout;
}

function claimsOpen() {
  return fs.readdirSync(path.join(run, 'vault', 'KANBAN', 'in-progress')).filter((f) => f.endsWith('.md')).length;
}

/** Wait for this beat's workers to close their cards (they are detached: the tick does not wait). */
async function settle() {
  const deadline = Date.now() + 60_000;
  while (claimsOpen() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

board('dry-run');
// Heartbeats, as a timer would run them (a director's flow needs one per step), until a round
// finds nothing left to do.
for (let beat = 0; beat < 15; beat += 1) {
  const out = board('tick');
  await settle();
  if (!out.includes('done this round')) break;
}

const kanban = path.join(run, 'vault', 'KANBAN');
for (const state of ['pending', 'in-progress', 'done']) {
  const cards = fs.readdirSync(path.join(kanban, state)).filter((f) => f.endsWith('.md'));
  console.log(`\n${state}/ (${cards.length})${cards.map((c) => `\n  ${c}`).join('')}`);
}
const done = fs.readdirSync(path.join(kanban, 'done')).filter((f) => f.endsWith('.md'));
if (done[0]) {
  console.log(`\n--- done/${done[0]} ---\n${fs.readFileSync(path.join(kanban, 'done', done[0]), 'utf8')}`);
}
console.log(`The example board ran in ${path.relative(process.cwd(), run) || '.'}/; its worker logs are in example-run/logs/.`);
