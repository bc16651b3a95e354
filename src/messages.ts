import type { z } from 'zod';
import { cardSchema, scheduledTemplateSchema } from './schema/card.js';
import { configSchema } from './schema/config.js';
import { harnessSchema } from './schema/harness.js';
import { profileSchema } from './schema/profile.js';

/**
 * The one table that turns validation failures into sentences a person can act on: what each
 * field of each kind of file is, with an example. `zodProblems` (errors.ts) words every schema
 * issue through it, so `dry-run`, `lint` and `status` say the same thing. Wording changes here
 * are reviewed through test/lint/messages.test.ts, which lists every sentence.
 */

export type DocKind = 'config' | 'profile' | 'card' | 'template' | 'harness' | 'models';

const PROFILE: Record<string, string> = {
  name: 'a trade name in kebab-case, the folder\'s name, e.g. `name: transcriber`',
  version: 'a version that goes up with every change of behaviour, e.g. `version: 1.2`',
  description: 'two or three plain sentences on what it does and does not do',
  function: 'its cognitive function, level 1 of matching, e.g. `function: summarize`',
  handles: 'a list of phrases this profile takes, e.g. `handles: [meeting notes, call transcript]`',
  refuses: 'a list of phrases that rule this profile out, e.g. `refuses: [legal contract]`',
  inputs: 'a list of ports, each with a name, e.g. `inputs: [{ name: notes, type: markdown }]`',
  outputs: 'a list of ports, each with a name, e.g. `outputs: [{ name: summary, type: markdown }]`',
  guarantees: 'a list of what it will never do, e.g. `guarantees: [read-only on inputs]`',
  model_capacity: 'one of minimum, standard, advanced',
  model_modality: 'one of text, audio, image',
  harness: 'the name of a harness file in the harnesses folder, e.g. `harness: claude-code`',
  record: 'a map of measured facts, e.g. `record: { reviewed: 2026-11-30 }`',
  budget: 'a map of limits, e.g. `budget: { tokens: 200000, usd: 1 }` (tokens a whole number, usd in dollars)',
  skills: 'the list of skills a worker mounts (skills/<skill>/SKILL.md), e.g. `skills: [summarize-notes]`',
  profiles: 'the list of profiles a director chains, e.g. `profiles: [summarizer, editor]`',
  failure_policy: 'what a director does when a child fails, e.g. `failure_policy: block`',
};

const CARD: Record<string, string> = {
  function: 'the cognitive function a profile must have, e.g. `function: summarize`',
  request: 'the request in words, matched against profiles\' handles, e.g. `request: Summarize the notes of Monday`',
  created: 'when the card was written: a date like 2026-08-20, 2026-08-20 13:56 or an ISO 8601 time',
  origin: 'who asked, e.g. `origin: human` (must be in trusted_origins to be dispatched)',
  paths: 'the list of outputs, vault-relative, e.g. `paths: [notes/summary.md]` (empty until closed)',
  attempts: 'a whole number of attempts so far, e.g. `attempts: 0`',
  priority: 'normal or urgent',
  inputs: 'a map of slot to vault-relative path (or a list of them), e.g. `inputs: { notes: notes/monday.md }`',
  destination: 'one vault-relative output file, e.g. `destination: summaries/monday.md`',
  recipient: 'the name of the profile it is pushed to, e.g. `recipient: summarizer`',
  push_reason: 'why it is pushed to its recipient, in words',
  flow: 'the name of the flow a director\'s child belongs to',
  director: 'the director\'s card file name',
  agent: 'the profile holding the claim (written by the board)',
  claimed: 'when the claim was made (written by the board)',
  model: 'the model that did the work (written by the board)',
  closed: 'when the card was closed (written by `board card close`)',
  blocked: '"<date> <reason>", or empty when not blocked',
};

const TEMPLATE: Record<string, string> = {
  ...CARD,
  trigger: 'a map like `trigger: { every: week, day: monday, time: "09:00" }`',
  'trigger.every': 'day, week or month',
  'trigger.day': 'a weekday for `every: week`, a day of the month (1–31) for `every: month`',
  'trigger.time': 'a 24-hour time in quotes, e.g. `time: "07:30"`',
  'trigger.active': 'true or false',
};

const CONFIG: Record<string, string> = {
  vault: 'the vault\'s folder (AGENTS/ and KANBAN/), relative to this file, e.g. `vault: vault`',
  harnesses: 'the folder of harness files, e.g. `harnesses: harnesses`',
  adapters: 'one file mapping harness names to definitions, e.g. `adapters: adapters.yml`',
  models: 'the models table, e.g. `models: models.yml`',
  default_harness: 'the harness a profile gets when it names none, e.g. `default_harness: claude-code`',
  trusted_origins: 'a list of card origins that may be dispatched, e.g. `trusted_origins: [human, scheduler]`',
  max_attempts: 'a whole number of attempts before a card is blocked, e.g. `max_attempts: 3`',
  max_dispatches_per_round: 'a whole number of workers started per tick, e.g. `max_dispatches_per_round: 5`',
  zombie_after: 'a duration like 90m, 2h or 1d',
  lease_stale_after: 'a duration like 60s, 2m or 1h',
  private_env: 'a KEY=value file for environment_from_private, e.g. `private_env: private.env`',
  logs: 'the folder for run logs and the journal, e.g. `logs: logs`',
  daily_budget: 'a map of limits across all runs of a day, e.g. `daily_budget: { tokens: 5000000, usd: 20 }`',
};

const HARNESS: Record<string, string> = {
  description: 'a sentence on what this harness runs',
  command: 'the argument list, program first, e.g. `command: ["claude", "-p", "{prompt}", "--model", "{model}"]`',
  prompt_template: 'the instruction text; {profile}, {card} and {vault} are substituted',
  environment: 'a map of literal variables, e.g. `environment: { HOME: /tmp/agent-home }`',
  environment_from_private: 'a list of keys read from private_env, e.g. `environment_from_private: [ANTHROPIC_API_KEY]`',
  'environment_from_private.*': 'a variable name like ANTHROPIC_API_KEY (letters, digits, _)',
  'command.*': 'text: one argument',
  'runner.kind': 'local or slurm',
  working_directory: 'the worker\'s folder, e.g. `working_directory: "{vault}"`',
  credential_guard: 'the hook file that blocks credential access, relative to the harnesses folder',
  timeout: 'a duration like 20m or 2h',
  runner: '`runner: { kind: local }` or `runner: { kind: slurm, args: [...] }`',
  cost: 'JSON paths to the run\'s cost, e.g. `cost: { tokens: usage.total_tokens }`',
  sandbox: '`sandbox: none` (no OS sandbox, written out), or what the workers need beyond the default, e.g. `sandbox: { read: [/opt/models], write: ["{vault}/cache"], hosts: [example.com:443] }`',
  'sandbox.read.*': 'an absolute path, or one under {vault}/ or {harnesses}/',
  'sandbox.write.*': 'an absolute path, or one under {vault}/ or {harnesses}/',
  'sandbox.hosts.*': 'a host and port, like example.com:443',
  endpoint: '`endpoint: { url_env: ANTHROPIC_BASE_URL, upstream: https://api.anthropic.com }` (upstream an http or https URL)',
  'endpoint.upstream': 'an http:// or https:// base URL, e.g. `upstream: https://api.openai.com/v1`',
  budget: 'a map of limits, e.g. `budget: { tokens: 200000, usd: 1 }` (tokens a whole number, usd in dollars)',
};

const HELP: Record<DocKind, Record<string, string>> = {
  profile: PROFILE,
  card: CARD,
  template: TEMPLATE,
  config: CONFIG,
  harness: HARNESS,
  // Any cell of the models table: harness → capacity (→ modality) → model.
  models: { '*': 'a model name, e.g. `standard: claude-sonnet-4-5`' },
};

/** The schemas' own top-level keys: the single source of what a kind of file may hold. */
const SHAPES: Record<DocKind, readonly string[]> = {
  profile: Object.keys(profileSchema.shape),
  card: Object.keys(cardSchema.shape),
  template: Object.keys(scheduledTemplateSchema.shape),
  config: Object.keys(configSchema.shape),
  harness: Object.keys(harnessSchema.shape),
  models: [],
};

/** Every field the standard (or the board's config) knows, per kind: what an unknown field is checked against. */
export function knownFields(kind: DocKind): readonly string[] {
  return SHAPES[kind];
}

/** The fields of a kind that the table words (test/lint/messages.test.ts checks it covers the schema). */
export function helpedFields(kind: DocKind): readonly string[] {
  return Object.keys(HELP[kind]).filter((k) => !k.includes('.') && k !== '*');
}

const KIND_NAME: Record<DocKind, string> = {
  config: 'config',
  profile: 'profile',
  card: 'card',
  template: 'scheduled template',
  harness: 'harness',
  models: 'models table',
};

/** What a field is, with an example, when the table knows it. */
export function fieldHelp(kind: DocKind | undefined, field: string): string | undefined {
  if (kind === undefined) return undefined;
  const table = HELP[kind];
  // The field itself, then its list element's entry (`x.*`), then the nearest parent that has one.
  const starred = field.replace(/\.\d+(?=\.|$)/g, '.*');
  if (table[field] ?? table[starred]) return table[field] ?? table[starred];
  for (let parent = field; parent.includes('.'); ) {
    parent = parent.slice(0, parent.lastIndexOf('.'));
    if (table[parent]) return table[parent];
  }
  return table['*'];
}

/** The kind of a file the board reads, from its name, when the caller does not say. */
export function kindOf(file: string): DocKind | undefined {
  if (/(^|[\\/])PROFILE\.md$/.test(file)) return 'profile';
  if (/(^|[\\/])scheduled[\\/][^\\/]+$/i.test(file)) return 'template';
  if (/\.md$/i.test(file)) return 'card';
  return undefined;
}

/** Damerau-Levenshtein distance (adjacent swaps count one), small strings only. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name an unknown one is most likely a typo of: same letters in another case or with
 * `-` for `_`, else within two edits (one for names of four letters or fewer). Undefined when none is close.
 */
export function closestField(name: string, known: readonly string[]): string | undefined {
  const folded = name.toLowerCase().replace(/-/g, '_');
  const same = known.find((k) => k === folded);
  if (same) return same;
  let best: { field: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(folded, k);
    const limit = Math.min(k.length, folded.length) <= 4 ? 1 : 2;
    if (d <= limit && (!best || d < best.d)) best = { field: k, d };
  }
  return best?.field;
}

/** The sentence for a field the kind does not know. */
export function unknownFieldSentence(kind: DocKind, field: string, suggestion: string | undefined): string {
  return `\`${field}\` is not a ${KIND_NAME[kind]} field${suggestion ? `: did you mean \`${suggestion}\`?` : ''}`;
}

const TYPE_WORDS: Record<string, string> = { string: 'text', array: 'a list', object: 'a map', number: 'a number', boolean: 'true or false', null: 'an empty value', undefined: 'nothing' };

/** What zod said it received, from its English message (`… received undefined`). */
function received(message: string): string | undefined {
  return /received (\w+)\s*$/.exec(message)?.[1];
}

/** The received type in words: "a list", "text". */
function found(message: string): string {
  const got = received(message);
  return got === undefined ? '' : `; found ${TYPE_WORDS[got] ?? got}`;
}

/** A union (or any issue) whose input was absent: every branch saw undefined. */
function absent(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return received(issue.message) === 'undefined';
  if (issue.code === 'invalid_union') return issue.errors.length > 0 && issue.errors.every((branch) => branch.some(absent));
  return false;
}

/** One zod issue as a sentence that names the field, says what is wrong and what would be right. */
export function issueSentence(kind: DocKind | undefined, issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  const help = fieldHelp(kind, field);
  const name = field === '' ? 'the file' : `\`${field}\``;
  switch (issue.code) {
    case 'invalid_type': {
      if (absent(issue)) return `${name} is required${help ? `: ${help}` : ` (${issue.expected} expected)`}`;
      if (field === '') return `the file must be a map of fields${found(issue.message).replace(';', ',')}`;
      return `${name} must be ${help ?? `a ${issue.expected}`}${found(issue.message)}`;
    }
    case 'invalid_value':
      return `${name} must be one of ${issue.values.map(String).join(', ')}${help && !help.startsWith('one of') && !/ or /.test(help) ? ` (${help})` : ''}`;
    case 'too_small':
      if (issue.origin === 'string') return `${name} is empty${help ? `: ${help}` : ''}`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${name} is an empty list${help ? `: ${help}` : ''}`;
      return `${name} must be at least ${String(issue.minimum)}${help ? ` (${help})` : ''}`;
    case 'too_big':
      return `${name} must be at most ${String(issue.maximum)}${help ? ` (${help})` : ''}`;
    case 'invalid_format':
      // Our formats carry their own words ("a duration like 90m, 2h or 1d").
      return `${name} must be ${issue.message.startsWith('Invalid') ? (help ?? issue.message) : issue.message}`;
    case 'invalid_union':
      if (absent(issue)) return `${name} is required${help ? `: ${help}` : ''}`;
      return `${name} must be ${help ?? 'another kind of value'}`;
    case 'unrecognized_keys':
      return issue.keys.map((k) => unknownFieldSentence(kind ?? 'config', k, kind ? closestField(k, knownFields(kind)) : undefined)).join('; ');
    case 'custom':
      // Our own refinements are worded already: "needs …" reads on from the name, the rest after a colon.
      return /^(needs|is|must) /.test(issue.message) ? `${name} ${issue.message}` : `${name}: ${issue.message}`;
    default:
      return `${name}: ${issue.message}${help ? ` (${help})` : ''}`;
  }
}

/** The 1-based line of a top-level `field:` in a YAML or front matter text, if it is there. */
export function fieldLine(text: string, field: string): number | undefined {
  const top = field.split('.')[0]!;
  if (top === '') return undefined;
  const escaped = top.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^(?:"${escaped}"|'${escaped}'|${escaped})[ \\t]*:`);
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex((l) => re.test(l));
  return i === -1 ? undefined : i + 1;
}

/** Two profiles with one name: the round leaves both out (core/plan.ts), lint says the same. */
export function duplicateNameSentence(name: string, others: readonly string[]): string {
  return `\`name\` "${name}" is also declared by ${others.join(', ')}: two profiles cannot share a name, so the board leaves both out until one is renamed`;
}

/** A private env file others can read (mode & 0o077): the keys it holds are anyone's on the host. */
export function privateEnvModeSentence(mode: number): string {
  const octal = (mode & 0o777).toString(8).padStart(3, '0');
  const who = [mode & 0o070 ? 'its group' : '', mode & 0o007 ? 'every user' : ''].filter(Boolean).join(' and ');
  return `the private env file is readable by ${who} (mode ${octal}): the keys in it are theirs too; \`chmod 600\` it`;
}
