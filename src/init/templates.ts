/**
 * What `board init` writes: a working board, every file commented, so a newcomer reads one
 * complete example of each thing (config, harness, models, profile, card, scheduled template)
 * instead of assembling them from field tables. Paths are relative to the folder being set up.
 */

export const STATE_FOLDERS = ['scheduled', 'pending', 'in-progress', 'done', 'archive'] as const;

export const EXAMPLE_PROFILE = 'note-writer';
export const EXAMPLE_HARNESS = 'example';

const BOARD_YML = `# The board's config. Relative paths resolve against this file's folder.
# Every key is in the README's "Configuration" table; the defaults are shown commented.
vault: vault                      # the vault: AGENTS/ (profiles) and KANBAN/ (cards)
default_harness: ${EXAMPLE_HARNESS}          # the harness a profile gets when it names none
# harnesses: harnesses            # folder of <name>.yml harness files
# models: models.yml              # harness → capacity (× modality) → concrete model
# trusted_origins: [human, scheduler]   # card origins that may be dispatched (directors are trusted too)
# max_attempts: 3                 # a card is blocked after this many failed attempts
# max_dispatches_per_round: 5     # workers started per tick at most
# zombie_after: 2h                # a claim older than this goes back to pending/
# lease_stale_after: 60s          # a claim whose supervisor stopped renewing its lease this long goes back
# private_env: private.env        # KEY=value file for a harness's environment_from_private
# logs: logs                      # run logs, the journal, stored runs
# daily_budget: { tokens: 5000000, usd: 20 }   # spend across all runs of a day (none by default)
`;

const MODELS_YML = `# harness → capacity → model. A profile asks for a capacity (minimum, standard, advanced) and
# a modality (text, audio, image), never a model: the board picks the cell here.
${EXAMPLE_HARNESS}:
  minimum: none-model-free
  standard: none-model-free
  advanced: none-model-free
# claude-code:
#   minimum: claude-haiku-4-5
#   standard: claude-sonnet-4-5
#   advanced: claude-opus-4-1
#   audio: { standard: some-audio-model }   # per modality, overriding the text row
`;

const HARNESS_YML = `# A harness says how to start a worker. This one runs no model: a Node script that writes a note
# for its card and closes it through the board's verbs, so a new board works end to end at once.
# Swap in a real one later (harnesses/ in the atomic-board repository: Claude Code, Codex, OpenCode).
description: A model-free worker that writes the note its card asks for.
# An argument list, never a shell. {prompt} and {model} are substituted inside each element;
# {harnesses} is this folder. The program (here node) must be on the worker's PATH.
command: ["node", "{harnesses}/example-worker.mjs", "--model", "{model}", "{prompt}"]
# The instruction the worker gets; {profile}, {card} and {vault} are absolute paths.
prompt_template: |
  You are the profile at {profile}. Work the card at {card} in the vault {vault}, then close it
  with "board card close" (or "board card fail" with the reason).
# Literal variables for the worker. Without PATH here, the worker gets the board's PATH.
environment:
  EXAMPLE_WORKER: "1"
# environment_from_private: [SOME_API_KEY]   # keys read from private_env, never written anywhere
working_directory: "{vault}"      # the worker's cwd
# timeout: 20m                    # stop a worker that runs longer than this
# The hook that blocks credential access (the standard's lock rule); lint fails without one.
credential_guard: guards/no-credentials.mjs
`;

const GUARD = `#!/usr/bin/env node
// The model-free worker calls no tools, so there is nothing to stop; every harness declares a
// guard all the same (the standard's lock rule). A real harness wires its CLI's hook here.
process.exit(0);
`;

const WORKER = `#!/usr/bin/env node
// A model-free worker: reads its card with \`board card show --json\`, writes a note, and closes
// the card through the board's verbs (never by editing the card's YAML).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const { BOARD_CARD: card, BOARD_VAULT: vault, BOARD_BIN: bin } = process.env;
if (!card || !vault || !bin) {
  console.error('example-worker: run me from \`board tick\` (BOARD_CARD, BOARD_VAULT and BOARD_BIN are missing)');
  process.exit(2);
}

/** \`board card …\` through the CLI that started this worker. */
function board(...args) {
  const result = spawnSync(process.execPath, [bin, 'card', ...args], { encoding: 'utf8', env: process.env });
  if (result.status !== 0) throw new Error(\`board card \${args[0]} exited \${result.status}: \${(result.stderr ?? '').trim()}\`);
  return result.stdout;
}

const { fields } = JSON.parse(board('show', card, '--json'));
board('note', card, 'admission passed; writing the note');
try {
  const output = typeof fields.destination === 'string' ? fields.destination : \`notes/\${path.basename(card, '.md')}.md\`;
  fs.mkdirSync(path.dirname(path.join(vault, output)), { recursive: true });
  fs.writeFileSync(path.join(vault, output), \`# \${fields.request}\\n\\nWritten by the model-free example worker for \${path.basename(card)}.\\n\`);
  board('close', card, '--path', output);
} catch (error) {
  board('fail', card, error.message);
  process.exit(1);
}
`;

export interface ProfileSeed {
  readonly name: string;
  readonly fn: string;
  readonly handles: readonly string[];
  readonly refuses: readonly string[];
  readonly skill: string;
  readonly description: string;
  /** A director instead of a worker: the profiles it chains and its failure policy (no skills). */
  readonly director?: { readonly profiles: readonly string[]; readonly failurePolicy: string };
}

export function profileText({ name, fn, handles, refuses, skill, description, director }: ProfileSeed): string {
  const refusesBlock =
    refuses.length > 0
      ? `refuses:                          # phrases that rule it out, whatever it handles\n${refuses.map((r) => `  - ${r}`).join('\n')}`
      : '# refuses:                        # phrases that rule it out, whatever it handles\n#   - publish';
  return `---
# An agent's contract. The board matches cards to it by string comparison only:
# level 1 \`function\` equal, level 2 a \`refuses\` phrase in the request eliminates it,
# level 3 the longest \`handles\` phrase found in the request wins (a tie waits as ambiguous).
name: ${name}                 # kebab-case; the folder's name
version: 1                        # bump it with every change of behaviour
description: >
  ${description}
function: ${fn}                   # the cognitive function: level 1 of matching
handles:                          # phrases it takes, found in a card's request on word boundaries
${handles.map((h) => `  - ${h}`).join('\n')}
${refusesBlock}
${director ? directorRank(director) : workerRank(skill)}model_capacity: minimum           # minimum | standard | advanced (default standard)
model_modality: text              # text | audio | image (default text)
# harness: claude-code            # a preferred harness; else the config's default_harness
# budget: { tokens: 200000, usd: 1 } # per run, measured at the credential proxy (the lower of this and the harness's wins)
# inputs:                         # ports it reads: name, type, transport, wireable, default, description
#   - { name: notes, type: markdown, transport: path }
# outputs:
#   - { name: note, type: markdown, transport: path, description: written where the card says }
guarantees:
${director ? "  - creates only its flow's cards, one at a time\n  - never writes outputs itself" : "  - read-only on inputs\n  - writes only the card's destination"}
# record: { reviewed: 2026-01-01 } # measured facts only
---

# ${name}

## Mission
What it produces, and what it does not do. Never invent facts the card does not give.

${director ? directorProcedure(director.profiles) : workerProcedure(skill)}
## Record
- 1: first version.
`;
}

function workerRank(skill: string): string {
  return `skills: [${skill}]                # a worker mounts skills (skills/<skill>/SKILL.md) …
# profiles: [other-profile]       # … a director chains profiles instead, with
# failure_policy: block           #     a failure policy (never both skills and profiles)
`;
}

function directorRank({ profiles, failurePolicy }: NonNullable<ProfileSeed['director']>): string {
  return `profiles: [${profiles.join(', ')}]   # a director chains these profiles, one child card at a time …
failure_policy: ${failurePolicy}            # … and says what a failure does (never skills too: that is a worker)
`;
}

function workerProcedure(skill: string): string {
  return `## Procedure
Claim → admission check (function and handles) → resolve inputs → mount \`${skill}\` → work →
close with the note's path. In card mode there is no one to ask: on any failure,
\`board card fail\` with the reason and stop.
`;
}

function directorProcedure(profiles: readonly string[]): string {
  return `## Procedure
A director is dead between steps: its memory is the board. On each wake-up:

1. An open child (\`board card children $BOARD_CARD\`)? Yield on it; never create a second one.
2. No \`inputs.dependent_task\`: create step 1 for ${profiles[0]} with
   \`board card new --recipient ${profiles[0]} … --flow <flow> --director $BOARD_CARD\`.
3. \`inputs.dependent_task\` names a child in done/: read its \`paths\` (the wiring rule: they
   fill the next worker's declared input) and create the next step${profiles.length > 1 ? ` (${profiles.slice(1).join(', ')})` : ''},
   or after the last step close this card with the child's paths.
4. Yield with \`board card yield $BOARD_CARD --until <child>\`: it writes \`inputs.dependent_task\`
   and performs the wiring self-check (the value must name the child's exact file name).

A child closed with empty \`paths\` is a false close: the board blocks this card. A child closed
empty with a justification ends the flow: close with \`--empty\` and the reason.
`;
}

export function skillText(skill: string): string {
  return `# ${skill}\n\nHow this profile does the work, step by step. Workers read it when they mount the skill.\n`;
}

function cardText(created: string): string {
  return `---
# A card: one unit of work. It asks; the profile decides.
function: write                   # matched against profiles' \`function\` (level 1)
request: Write a short note about what this board does   # matched against handles/refuses
created: ${created}
origin: human                     # who asked; must be in trusted_origins to be dispatched
destination: notes/what-this-board-does.md   # a concrete output file: an order (vault-relative)
paths: []                         # filled by the worker at close: every output
attempts: 0                       # the board counts failed attempts here
# priority: urgent                # normal (default) or urgent: urgent dispatches first
# inputs:                         # raw material by reference; the card waits until each exists
#   notes: notes/meeting.md
# recipient: note-writer          # push to one profile, skipping matching …
# push_reason: asked for by name  # … and say why
# flow: weekly-briefing           # chain membership, written by a director
# director: 2026-01-01-briefing.md
# agent, claimed, model, closed, blocked: written by the board and the worker, never by hand
---

Anything below the front matter is the card's body: context for the worker.

## Record
`;
}

const SCHEDULED = `---
# A scheduled template: a card plus \`trigger\`. The first tick after each due moment writes
# pending/YYYY-MM-DD-weekly-note.md from it (without \`trigger\`); missed periods are not caught up.
function: write
request: Write the weekly note on what moved on the board
origin: scheduler
paths: []
attempts: 0
trigger:
  every: week                     # day | week | month
  day: monday                     # a weekday for weeks, 1–31 for months, none for days
  time: "09:00"                   # local time, 24-hour
  active: false                   # set true to start it
---

Each Monday after 09:00, the first tick writes this week's instance.
`;

/** Every file `board init` writes, by path relative to the folder; `created` is the example card's. */
export function scaffoldFiles(created: string, cardName: string): Record<string, string> {
  return {
    'board.yml': BOARD_YML,
    'models.yml': MODELS_YML,
    [`harnesses/${EXAMPLE_HARNESS}.yml`]: HARNESS_YML,
    'harnesses/example-worker.mjs': WORKER,
    'harnesses/guards/no-credentials.mjs': GUARD,
    [`vault/AGENTS/${EXAMPLE_PROFILE}/PROFILE.md`]: profileText({
      name: EXAMPLE_PROFILE,
      fn: 'write',
      handles: ['note', 'short note'],
      refuses: ['legal contract', 'publish'],
      skill: 'write-note',
      description: "Writes short notes in Markdown from a card's request. It does not write anything meant for publication.",
    }),
    [`vault/AGENTS/${EXAMPLE_PROFILE}/skills/write-note/SKILL.md`]: skillText('write-note'),
    [`vault/KANBAN/pending/${cardName}`]: cardText(created),
    'vault/KANBAN/scheduled/weekly-note.md': SCHEDULED,
  };
}
