import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { formatProblem, zodProblems } from '../../src/errors.js';
import { helpedFields, knownFields, type DocKind } from '../../src/messages.js';
import { cardSchema, scheduledTemplateSchema } from '../../src/schema/card.js';
import { configSchema } from '../../src/schema/config.js';
import { harnessSchema } from '../../src/schema/harness.js';
import { profileSchema } from '../../src/schema/profile.js';

/**
 * Every sentence the CLI prints for a bad config, profile, card, scheduled template or harness,
 * from the one table in src/messages.ts: a wording change shows up here, in review. (Unknown
 * fields of profiles and cards, YAML errors and the config search are listed in lint.test.ts and
 * fields.test.ts; they use the same sentences.)
 */
type Doc = Record<string, unknown>;
const BASE: Record<'profile' | 'card' | 'template' | 'config' | 'harness', Doc> = {
  profile: { name: 'writer', version: 1, description: 'Writes.', function: 'write', handles: ['blog post'], skills: ['write-post'] },
  card: { function: 'write', request: 'Write a post', created: '2026-12-01', origin: 'human' },
  template: { function: 'write', request: 'Write a post', origin: 'scheduler', trigger: { every: 'week', day: 'monday', time: '09:00' } },
  config: { vault: 'vault', default_harness: 'claude' },
  harness: { command: ['claude', '{prompt}'], prompt_template: 'Work {card}' },
};
const SCHEMAS: Record<keyof typeof BASE, z.ZodType> = { profile: profileSchema, card: cardSchema, template: scheduledTemplateSchema, config: configSchema, harness: harnessSchema };

const del = (k: string) => (d: Doc): Doc => {
  const c = structuredClone(d);
  delete c[k];
  return c;
};
const set = (k: string, v: unknown) => (d: Doc): Doc => ({ ...structuredClone(d), [k]: v });
const setT = (k: string, v: unknown) => (d: Doc): Doc => ({ ...structuredClone(d), trigger: { ...(d.trigger as Doc), [k]: v } });

const TABLE: [keyof typeof BASE, string, (d: Doc) => unknown, string][] = [
    ['profile', 'name missing', del('name'), "`name` is required: a trade name in kebab-case, the folder's name, e.g. `name: transcriber`"],
    ['profile', 'name not kebab-case', set('name', 'My Writer'), "`name` must be a trade name in kebab-case, like \"transcriber\""],
    ['profile', 'version missing', del('version'), "`version` is required: a version that goes up with every change of behaviour, e.g. `version: 1.2`"],
    ['profile', 'description missing', del('description'), "`description` is required: two or three plain sentences on what it does and does not do"],
    ['profile', 'description empty', set('description', ''), "`description` is empty: two or three plain sentences on what it does and does not do"],
    ['profile', 'function missing', del('function'), "`function` is required: its cognitive function, level 1 of matching, e.g. `function: summarize`"],
    ['profile', 'handles missing', del('handles'), "`handles` is required: a list of phrases this profile takes, e.g. `handles: [meeting notes, call transcript]`"],
    ['profile', 'handles empty', set('handles', []), "`handles` needs at least one phrase, e.g. `handles: [meeting notes]`"],
    ['profile', 'handles a number', set('handles', 3), "`handles` must be a list of phrases this profile takes, e.g. `handles: [meeting notes, call transcript]`"],
    ['profile', 'refuses a map', set('refuses', { a: 1 }), "`refuses` must be a list of phrases that rule this profile out, e.g. `refuses: [legal contract]`"],
    ['profile', 'model_capacity unknown', set('model_capacity', 'huge'), "`model_capacity` must be one of minimum, standard, advanced"],
    ['profile', 'model_modality unknown', set('model_modality', 'video'), "`model_modality` must be one of text, audio, image"],
    ['profile', 'inputs not a list', set('inputs', 'notes'), "`inputs` must be a list of ports, each with a name, e.g. `inputs: [{ name: notes, type: markdown }]`; found text"],
    ['profile', 'guarantees a string', set('guarantees', 'read-only'), "`guarantees` must be a list of what it will never do, e.g. `guarantees: [read-only on inputs]`; found text"],
    ['profile', 'harness empty', set('harness', ''), "`harness` is empty: the name of a harness file in the harnesses folder, e.g. `harness: claude-code`"],
    ['profile', 'record a list', set('record', ['x']), "`record` must be a map of measured facts, e.g. `record: { reviewed: 2026-11-30 }`; found a list"],
    ['profile', 'worker and director', set('profiles', ['a']), "`skills`: a profile is a worker (skills) or a director (profiles + failure_policy), never both"],
    ['profile', 'neither worker nor director', del('skills'), "`skills`: a worker declares skills; a director declares profiles and failure_policy"],
    ['profile', 'director without failure_policy', (d) => { const c = del('skills')(d); c.profiles = ['a']; return c; }, "`failure_policy`: a director declares both profiles and failure_policy"],
    ['profile', 'front matter a list', () => ['a'], "the file must be a map of fields, found a list"],
    ['card', 'function missing', del('function'), "`function` is required: the cognitive function a profile must have, e.g. `function: summarize`"],
    ['card', 'request missing', del('request'), "`request` is required: the request in words, matched against profiles' handles, e.g. `request: Summarize the notes of Monday`"],
    ['card', 'request empty', set('request', ''), "`request` is empty: the request in words, matched against profiles' handles, e.g. `request: Summarize the notes of Monday`"],
    ['card', 'created missing', del('created'), "`created` is required: when the card was written: a date like 2026-08-20, 2026-08-20 13:56 or an ISO 8601 time"],
    ['card', 'created not a date', set('created', 'yesterday'), "`created` must be a date like 2026-08-20, 2026-08-20 13:56 or an ISO 8601 time"],
    ['card', 'origin missing', del('origin'), "`origin` is required: who asked, e.g. `origin: human` (must be in trusted_origins to be dispatched)"],
    ['card', 'priority asap', set('priority', 'asap'), "`priority` must be one of normal, urgent"],
    ['card', 'attempts negative', set('attempts', -1), "`attempts` must be at least 0 (a whole number of attempts so far, e.g. `attempts: 0`)"],
    ['card', 'attempts a string', set('attempts', 'two'), "`attempts` must be a whole number of attempts so far, e.g. `attempts: 0`; found text"],
    ['card', 'paths a string', set('paths', 'notes/a.md'), "`paths` must be the list of outputs, vault-relative, e.g. `paths: [notes/summary.md]` (empty until closed); found text"],
    ['card', 'inputs a list', set('inputs', ['notes/a.md']), "`inputs` must be a map of slot to vault-relative path (or a list of them), e.g. `inputs: { notes: notes/monday.md }`; found a list"],
    ['card', 'destination a number', set('destination', 3), "`destination` must be one vault-relative output file, e.g. `destination: summaries/monday.md`; found a number"],
    ['card', 'blocked true', set('blocked', true), "`blocked` must be \"<date> <reason>\", or empty when not blocked"],
    ['template', 'trigger missing', del('trigger'), "`trigger` is required: a map like `trigger: { every: week, day: monday, time: \"09:00\" }`"],
    ['template', 'trigger.every hourly', setT('every', 'hourly'), "`trigger.every` must be one of day, week, month"],
    ['template', 'trigger.time 9am', setT('time', '9am'), "`trigger.time` must be a 24-hour time like 07:30"],
    ['template', 'trigger.day not a weekday', setT('day', 'funday'), "`trigger.day`: a weekday (monday … sunday) for `every: week`"],
    ['template', 'trigger.active yes', setT('active', 'yes'), "`trigger.active` must be true or false; found text"],
    ['config', 'vault missing', del('vault'), "`vault` is required: the vault's folder (AGENTS/ and KANBAN/), relative to this file, e.g. `vault: vault`"],
    ['config', 'default_harness missing', del('default_harness'), "`default_harness` is required: the harness a profile gets when it names none, e.g. `default_harness: claude-code`"],
    ['config', 'vaul typo', (d) => { const c = del('vault')(d); c.vaul = 'vault'; return c; }, "`vault` is required: the vault's folder (AGENTS/ and KANBAN/), relative to this file, e.g. `vault: vault` | `vaul` is not a config field: did you mean `vault`?"],
    ['config', 'unknown key', set('colour', 'blue'), "`colour` is not a config field"],
    ['config', 'max_attempts zero', set('max_attempts', 0), "`max_attempts` must be at least 1 (a whole number of attempts before a card is blocked, e.g. `max_attempts: 3`)"],
    ['config', 'max_dispatches_per_round text', set('max_dispatches_per_round', 'five'), "`max_dispatches_per_round` must be a whole number of workers started per tick, e.g. `max_dispatches_per_round: 5`; found text"],
    ['config', 'zombie_after 2 hours', set('zombie_after', '2 hours'), "`zombie_after` must be a duration like 90m, 2h or 1d"],
    ['config', 'trusted_origins a string', set('trusted_origins', 'human'), "`trusted_origins` must be a list of card origins that may be dispatched, e.g. `trusted_origins: [human, scheduler]`; found text"],
    ['harness', 'command missing', del('command'), "`command` is required: the argument list, program first, e.g. `command: [\"claude\", \"-p\", \"{prompt}\", \"--model\", \"{model}\"]`"],
    ['harness', 'command empty', set('command', []), "`command` is an empty list: the argument list, program first, e.g. `command: [\"claude\", \"-p\", \"{prompt}\", \"--model\", \"{model}\"]`"],
    ['harness', 'command a string', set('command', 'claude -p'), "`command` must be the argument list, program first, e.g. `command: [\"claude\", \"-p\", \"{prompt}\", \"--model\", \"{model}\"]`; found text"],
    ['harness', 'prompt_template missing', del('prompt_template'), "`prompt_template` is required: the instruction text; {profile}, {card} and {vault} are substituted"],
    ['harness', 'environment a list', set('environment', ['A=1']), "`environment` must be a map of literal variables, e.g. `environment: { HOME: /tmp/agent-home }`; found a list"],
    ['harness', 'environment_from_private bad key', set('environment_from_private', ['not a key']), "`environment_from_private.0` must be a variable name like ANTHROPIC_API_KEY (letters, digits, _)"],
    ['harness', 'timeout 20 minutes', set('timeout', '20 minutes'), "`timeout` must be a duration like 90m, 2h or 1d"],
    ['harness', 'credential-guard typo', set('credential-guard', 'guard.sh'), "`credential-guard` is not a harness field: did you mean `credential_guard`?"],
    ['harness', 'runner kind docker', set('runner', { kind: 'docker' }), "`runner.kind` must be local or slurm"],
];

describe('validation sentences (one table, src/messages.ts)', () => {
  it.each(TABLE)('%s: %s', (kind, _what, mutate, sentence) => {
    const parsed = SCHEMAS[kind].safeParse(mutate(BASE[kind]));
    expect(parsed.success).toBe(false);
    const problems = zodProblems('F', parsed.error!, { kind: kind as DocKind });
    expect(problems.map(formatProblem).join(' | ').replace(/^F: /, '').replaceAll(' | F: ', ' | ')).toBe(sentence);
  });

  it.each(['profile', 'card', 'template', 'config', 'harness'] as const)('words every %s field the schema has (a new field gets its sentence here)', (kind) => {
    expect([...helpedFields(kind)].sort()).toEqual([...knownFields(kind)].sort());
  });

  it('names the line of the field when the text is given', () => {
    const text = 'vault: vault\ndefault_harness: claude\nmax_attempts: lots\n';
    const parsed = configSchema.safeParse({ vault: 'vault', default_harness: 'claude', max_attempts: 'lots' });
    expect(zodProblems('board.yml', parsed.error!, { kind: 'config', text }).map(formatProblem)).toEqual([
      'board.yml (line 3): `max_attempts` must be a whole number of attempts before a card is blocked, e.g. `max_attempts: 3`; found text',
    ]);
  });

  it('guesses the kind from the file name when the caller does not say', () => {
    const parsed = profileSchema.safeParse(del('handles')(BASE.profile));
    expect(zodProblems('AGENTS/writer/PROFILE.md', parsed.error!)[0]).toMatchObject({ field: 'handles', reason: expect.stringMatching(/^`handles` is required: a list of phrases this profile takes/) });
  });

  it('normalizes priority as function is: Urgent is urgent', () => {
    expect(cardSchema.parse({ ...BASE.card, priority: 'Urgent' }).priority).toBe('urgent');
    expect(cardSchema.parse({ ...BASE.card, priority: ' NORMAL ' }).priority).toBe('normal');
  });
});
