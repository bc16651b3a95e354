import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unstartableHarnesses, programProblem } from '../../src/config/program.js';
import { planRound } from '../../src/core/plan.js';
import { unknownFields } from '../../src/core/unknown-fields.js';
import type { InputFact, Parsed, RoundSettings, RunFact, VaultSnapshot } from '../../src/core/types.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { gatherLintInput } from '../../src/lint/gather.js';
import { lint } from '../../src/lint/index.js';
import { closestField, knownFields } from '../../src/messages.js';
import { cardSchema, type Card } from '../../src/schema/card.js';
import { harnessSchema } from '../../src/schema/harness.js';
import { profileSchema, type Profile } from '../../src/schema/profile.js';
import { card, makeBoard, profile } from '../helpers/vault.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'board-fields-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('did you mean', () => {
  it.each([
    ['refuse', 'profile', 'refuses'],
    ['handle', 'profile', 'handles'],
    ['modelcapacity', 'profile', 'model_capacity'],
    ['model-capacity', 'profile', 'model_capacity'],
    ['Function', 'profile', 'function'],
    ['priorty', 'card', 'priority'],
    ['Priority', 'card', 'priority'],
    ['recipent', 'card', 'recipient'],
    ['destinaton', 'card', 'destination'],
    ['vaul', 'config', 'vault'],
    ['credential-guard', 'harness', 'credential_guard'],
    ['colour', 'config', undefined],
    ['ticket', 'card', undefined],
    ['nam', 'profile', 'name'],
    ['nme', 'profile', 'name'],
    ['id', 'profile', undefined],
  ] as const)('%s in a %s → %s', (name, kind, expected) => {
    expect(closestField(name, knownFields(kind))).toBe(expected);
  });
});

describe('unknown fields', () => {
  it("reports every unknown profile field, with the line, and only a card's near misses", () => {
    const text = '---\nname: w\nrefuse: [legal]\nteam: docs\n---\n';
    expect(unknownFields('AGENTS/w/PROFILE.md', parseFrontMatter(text).data, 'profile', text)).toEqual([
      { file: 'AGENTS/w/PROFILE.md', field: 'refuse', line: 3, reason: '`refuse` is not a profile field: did you mean `refuses`?' },
      { file: 'AGENTS/w/PROFILE.md', field: 'team', line: 4, reason: '`team` is not a profile field' },
    ]);
    const cardText = '---\nfunction: write\npriorty: urgent\nticket: ABC-1\n---\n';
    expect(unknownFields('x.md', parseFrontMatter(cardText).data, 'card', cardText)).toEqual([
      { file: 'x.md', field: 'priorty', line: 3, reason: '`priorty` is not a card field: did you mean `priority`?' },
    ]);
  });

  it('lint: a profile typo is an error (exit 1), a card typo a warning (exit 0), both with file, line and the suggestion', async () => {
    const skill = { 'AGENTS/writer/skills/write-post/SKILL.md': '# s\n' };
    const good = card('function: write\nrequest: a blog post\ncreated: 2026-12-01\norigin: human');
    const profileTypo = makeBoard({ ...skill, 'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post]\nrefuse: [legal contract]\nskills: [write-post]'), 'KANBAN/pending/good.md': good });
    const found = lint(await gatherLintInput({ config: 'board.yml', cwd: profileTypo, env: { PATH: process.env.PATH } }));
    expect(found).toEqual([{ check: 'fields', file: 'AGENTS/writer/PROFILE.md', field: 'refuse', line: 7, reason: '`refuse` is not a profile field: did you mean `refuses`?' }]);

    const cardTypo = makeBoard({ ...skill, 'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post]'), 'KANBAN/pending/typo.md': card('function: write\nrequest: a blog post\ncreated: 2026-12-01\norigin: human\npriorty: urgent') });
    expect(lint(await gatherLintInput({ config: 'board.yml', cwd: cardTypo, env: { PATH: process.env.PATH } }))).toEqual([
      { check: 'fields', file: 'KANBAN/pending/typo.md', field: 'priorty', line: 6, reason: '`priorty` is not a card field: did you mean `priority`?', severity: 'warning' },
    ]);
  });
});

const asProfile = (over: Record<string, unknown>, text = ''): Parsed<Profile> => {
  const value = profileSchema.parse({ version: 1, description: 'd', skills: ['s'], ...over });
  return { ok: true, file: `AGENTS/${value.name}/PROFILE.md`, text, value };
};
const asCard = (file: string, over: Record<string, unknown> = {}): Parsed<Card> => ({
  ok: true,
  file,
  text: '',
  value: cardSchema.parse({ function: 'write', request: 'Translate the legal contract into a blog post', created: '2026-08-19', origin: 'human', ...over }),
});
const snapshot = (over: Partial<VaultSnapshot>): VaultSnapshot => ({
  profiles: [],
  templates: [],
  pending: [],
  inProgress: [],
  existingNames: new Set(),
  inputs: new Map<string, InputFact>(),
  runs: new Map<string, RunFact>(),
  ...over,
});
const settings = (over: Partial<RoundSettings> = {}): RoundSettings => ({
  trustedOrigins: ['human', 'scheduler'],
  maxAttempts: 3,
  maxDispatches: 5,
  zombieAfterMs: 7_200_000,
  startGraceMs: 300_000,
  leaseStaleAfterMs: 60_000,
  defaultHarness: 'local',
  harnesses: new Map([['local', harnessSchema.parse({ command: ['agent'], prompt_template: 'p' })]]),
  harnessProblems: [],
  models: { local: { standard: 'mid' } },
  privateKeys: new Set(),
  ...over,
});
const NOW = new Date('2026-08-20T09:15:00Z');

describe('the planner', () => {
  it("shows a profile's unknown field and a card's near miss as warnings, and still plans", () => {
    const text = '---\nname: writer\nrefuse: [legal contract]\n---\n';
    const plan = planRound(
      snapshot({ profiles: [asProfile({ name: 'writer', function: 'write', handles: ['blog post'], refuse: ['legal contract'] }, text)], pending: [asCard('a.md', { priorty: 'urgent' })] }),
      settings(),
      NOW,
    );
    expect(plan.dispatch.map((d) => d.card)).toEqual(['a.md']);
    expect(plan.warnings).toEqual([
      { file: 'AGENTS/writer/PROFILE.md', field: 'refuse', line: 3, reason: '`refuse` is not a profile field: did you mean `refuses`?' },
      { file: 'a.md', field: 'priorty', reason: '`priorty` is not a card field: did you mean `priority`?' },
    ]);
  });

  it('leaves a card waiting, no attempt spent, when its harness cannot start', () => {
    const plan = planRound(
      snapshot({ profiles: [asProfile({ name: 'writer', function: 'write', handles: ['blog post'] })], pending: [asCard('a.md', { attempts: 1 })] }),
      settings({ unstartable: new Map([['local', '`agent` is not on its PATH (the board\'s PATH: /usr/bin)']]) }),
      NOW,
    );
    expect(plan.dispatch).toEqual([]);
    expect(plan.blocked).toEqual([]);
    expect(plan.waiting).toEqual([{ card: 'a.md', kind: 'harness', reason: "ready for writer, but harness local cannot start: `agent` is not on its PATH (the board's PATH: /usr/bin)" }]);
  });

  it('compares origin and recipient after normalizing, and reads priority: Urgent as urgent', () => {
    const plan = planRound(
      snapshot({
        profiles: [asProfile({ name: 'note-writer', function: 'write', handles: ['blog post'] })],
        pending: [asCard('a.md', { origin: 'Human' }), asCard('b.md', { recipient: 'Note Writer' }), asCard('c.md', { priority: 'Urgent', created: '2026-08-19 11:00' })],
      }),
      settings({ maxDispatches: 1 }),
      NOW,
    );
    expect(plan.dispatch.map((d) => d.card)).toEqual(['c.md']);
    expect(plan.blocked).toEqual([]);
    expect(plan.waiting.map((w) => [w.card, w.kind])).toEqual([['a.md', 'capacity'], ['b.md', 'capacity']]);
  });
});

describe('a harness program', () => {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'my-agent-cli'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'not-exec'), '#!/bin/sh\n', { mode: 0o644 });
  fs.mkdirSync(path.join(tmp, 'harnesses'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'harnesses', 'team_worker.py'), 'print(1)\n');
  const place = { harnessesDir: path.join(tmp, 'harnesses'), vault: tmp, boardPath: '/nonexistent' };
  const h = (command: string[], extra: Record<string, unknown> = {}) => harnessSchema.parse({ command, prompt_template: 'p', ...extra });

  it.each([
    ['found on the harness PATH', h(['my-agent-cli'], { environment: { PATH: bin } }), undefined],
    ['found on the board PATH', h(['my-agent-cli']), undefined, { boardPath: `/nonexistent:${bin}` }],
    ['missing from the board PATH', h(['my-agent-cli']), "`my-agent-cli` is not on its PATH (the board's PATH: /nonexistent)"],
    ['missing from the harness PATH', h(['my-agent-cli'], { environment: { PATH: '/nope' } }), "`my-agent-cli` is not on its PATH (the harness's environment.PATH: /nope)"],
    ['not executable', h(['not-exec'], { environment: { PATH: bin } }), `${path.join(bin, 'not-exec')} is not executable`],
    ['a path that exists', h([path.join(bin, 'my-agent-cli')]), undefined],
    ['a path relative to the working directory', h(['./bin/my-agent-cli']), undefined],
    ['a missing path', h(['./bin/gone']), `its command names ./bin/gone, which does not exist (${path.join(tmp, 'bin/gone')})`],
    ['a missing program under {harnesses}', h(['{harnesses}/gone.sh']), `its command names {harnesses}/gone.sh, which does not exist (${path.join(tmp, 'harnesses/gone.sh')})`],
    // Issue 19: a script the interpreter is given is checked like the program itself.
    ['a script under {harnesses} that exists', h([process.execPath, '{harnesses}/team_worker.py', '{prompt}']), undefined],
    ['a missing script under {harnesses}, with the near name', h([process.execPath, '{harnesses}/team_wroker.py', '{prompt}']), `its command names {harnesses}/team_wroker.py, which does not exist (${path.join(tmp, 'harnesses/team_wroker.py')}) (did you mean team_worker.py?)`],
    ['a missing file under {vault}', h([process.execPath, '{vault}/tools/run.py']), `its command names {vault}/tools/run.py, which does not exist (${path.join(tmp, 'tools/run.py')})`],
    ['a missing absolute path', h([process.execPath, '--config', '/nonexistent/worker.toml']), 'its command names /nonexistent/worker.toml, which does not exist'],
    ['flags, {prompt} and {model} name no file', h([process.execPath, '-p', '{prompt}', '--model', '{model}', '--out={harnesses}/x']), undefined],
    ['a Slurm harness is not judged here', h(['gone-cli'], { runner: { kind: 'slurm' } }), undefined],
  ] as const)('%s', (_what, harness, expected, over = {}) => {
    expect(programProblem(harness, { ...place, ...over })).toBe(expected);
  });

  it('lint names each harness that cannot start', async () => {
    const root = makeBoard({}, { 'harnesses/gone.yml': 'command: [my-missing-agent-cli]\nprompt_template: p\ncredential_guard: guard.sh\n', 'models.yml': 'fake:\n  standard: m\ngone:\n  standard: m\n' });
    const found = lint(await gatherLintInput({ config: 'board.yml', cwd: root, env: { PATH: '/nonexistent' } }));
    expect(found).toEqual([
      { check: 'program', file: path.join(root, 'harnesses/gone.yml'), field: 'command', reason: "harness gone cannot start: `my-missing-agent-cli` is not on its PATH (the board's PATH: /nonexistent)" },
    ]);
    expect(unstartableHarnesses(new Map([['ok', h([process.execPath])], ['gone', h(['my-missing-agent-cli'])]]), place)).toEqual(new Map([['gone', "`my-missing-agent-cli` is not on its PATH (the board's PATH: /nonexistent)"]]));
  });
});
