import { describe, expect, it } from 'vitest';
import { planRound } from '../../src/core/plan.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { cardSchema, scheduledTemplateSchema, type Card, type ScheduledTemplate } from '../../src/schema/card.js';
import { harnessSchema } from '../../src/schema/harness.js';
import { profileSchema, type Profile } from '../../src/schema/profile.js';
import type { InputFact, Parsed, RoundSettings, RunFact, VaultSnapshot } from '../../src/core/types.js';

const NOW = new Date('2026-08-20T09:15:00Z'); // a Thursday; TZ=UTC
const STAMP = '2026-08-20 09:15';

function profile(over: Record<string, unknown>): Parsed<Profile> {
  const value = profileSchema.parse({ version: 1, description: 'd', skills: ['s'], ...over });
  return { ok: true, file: `AGENTS/${value.name}/PROFILE.md`, text: '', value };
}
function director(over: Record<string, unknown>): Parsed<Profile> {
  const value = profileSchema.parse({ version: 1, description: 'd', profiles: ['writer'], failure_policy: 'block', ...over });
  return { ok: true, file: `AGENTS/${value.name}/PROFILE.md`, text: '', value };
}
function pending(file: string, over: Record<string, unknown> = {}): Parsed<Card> {
  const value = cardSchema.parse({ function: 'write', request: 'a blog post', created: '2026-08-19 10:00', origin: 'human', ...over });
  return { ok: true, file, text: '', value };
}
function template(slug: string, yamlText: string): Parsed<ScheduledTemplate> {
  const text = `---\n${yamlText}---\n\nBody of ${slug}.\n`;
  const value = scheduledTemplateSchema.parse(parseFrontMatter(text).data);
  return { ok: true, file: `KANBAN/scheduled/${slug}.md`, text, value };
}

const writer = profile({ name: 'writer', function: 'write', handles: ['blog post', 'article'] });
const transcriber = profile({ name: 'transcriber', function: 'transcribe', handles: ['audio'], harness: 'remote', model_capacity: 'advanced' });

function snapshot(over: Partial<VaultSnapshot> = {}): VaultSnapshot {
  return {
    profiles: [writer, transcriber],
    templates: [],
    pending: [],
    inProgress: [],
    existingNames: new Set(),
    inputs: new Map<string, InputFact>(),
    runs: new Map<string, RunFact>(),
    ...over,
  };
}

function settings(over: Partial<RoundSettings> = {}): RoundSettings {
  return {
    trustedOrigins: ['human', 'scheduler'],
    maxAttempts: 3,
    maxDispatches: 5,
    zombieAfterMs: 2 * 3_600_000,
    startGraceMs: 5 * 60_000,
    leaseStaleAfterMs: 60_000,
    defaultHarness: 'local',
    harnesses: new Map([
      ['local', harnessSchema.parse({ command: ['agent', '{prompt}'], prompt_template: 'p' })],
      ['remote', harnessSchema.parse({ command: ['r', '{prompt}'], prompt_template: 'p', environment_from_private: ['API_KEY'] })],
    ]),
    harnessProblems: [],
    models: { local: { minimum: 'small', standard: 'mid', advanced: 'big' }, remote: { advanced: 'r-big' } },
    privateKeys: new Set(['API_KEY']),
    ...over,
  };
}

describe('planRound', () => {
  it('dispatches a matched card with harness and model, and reports the round', () => {
    const plan = planRound(snapshot({ pending: [pending('a.md')] }), settings(), NOW);
    // The fields this test is about (the Plan grows new ones as the shell needs them).
    const { now, scheduled, dispatch, waiting, blocked, zombies, invalid, profiles, profileProblems, templateProblems } = plan;
    expect({ now, scheduled, dispatch, waiting, blocked, zombies, invalid, profiles, profileProblems, templateProblems }).toEqual({
      now: '2026-08-20T09:15:00.000Z',
      scheduled: [],
      dispatch: [
        { card: 'a.md', profile: 'writer', profilePath: 'AGENTS/writer/PROFILE.md', harness: 'local', model: 'mid', via: 'funnel', descriptor: 'blog post', attempts: 0, scheduled: false },
      ],
      waiting: [],
      blocked: [],
      zombies: [],
      invalid: [],
      profiles: [
        { name: 'transcriber', path: 'AGENTS/transcriber/PROFILE.md' },
        { name: 'writer', path: 'AGENTS/writer/PROFILE.md' },
      ],
      profileProblems: [],
      templateProblems: [],
    });
  });

  it('uses the profile harness and capacity, and a recipient bypass', () => {
    const plan = planRound(snapshot({ pending: [pending('t.md', { function: 'transcribe', request: 'audio' }), pending('r.md', { recipient: 'transcriber', request: 'whatever' })] }), settings(), NOW);
    expect(plan.dispatch).toEqual([
      { card: 'r.md', profile: 'transcriber', profilePath: 'AGENTS/transcriber/PROFILE.md', harness: 'remote', model: 'r-big', via: 'recipient', descriptor: '', attempts: 0, scheduled: false },
      { card: 't.md', profile: 'transcriber', profilePath: 'AGENTS/transcriber/PROFILE.md', harness: 'remote', model: 'r-big', via: 'funnel', descriptor: 'audio', attempts: 0, scheduled: false },
    ]);
  });

  it('writes a due scheduled instance and dispatches it in the same round', () => {
    const t = template('daily-digest', 'function: write\nrequest: an article digest\norigin: scheduler\ntrigger:\n  every: day\n  time: "09:00"\n');
    const plan = planRound(snapshot({ templates: [t] }), settings(), NOW);
    expect(plan.scheduled).toEqual([
      {
        template: 'KANBAN/scheduled/daily-digest.md',
        instance: '2026-08-20-daily-digest.md',
        text:
          "---\nfunction: write\nrequest: an article digest\norigin: scheduler\ncreated: '2026-08-20T09:15:00.000Z'\nattempts: 0\npaths: []\n---\n\nBody of daily-digest.\n",
      },
    ]);
    expect(plan.dispatch).toEqual([
      { card: '2026-08-20-daily-digest.md', profile: 'writer', profilePath: 'AGENTS/writer/PROFILE.md', harness: 'local', model: 'mid', via: 'funnel', descriptor: 'article', attempts: 0, scheduled: true },
    ]);
  });

  it('skips a scheduled instance not yet due, inactive, or already existing anywhere', () => {
    const later = template('later', 'function: write\nrequest: article\norigin: scheduler\ntrigger:\n  every: day\n  time: "09:16"\n');
    const off = template('off', 'function: write\nrequest: article\norigin: scheduler\ntrigger:\n  every: day\n  active: false\n');
    const done = template('done', 'function: write\nrequest: article\norigin: scheduler\ntrigger:\n  every: week\n  day: monday\n');
    const plan = planRound(snapshot({ templates: [later, off, done], existingNames: new Set(['2026-08-17-done.md']) }), settings(), NOW);
    expect(plan.scheduled).toEqual([]);
    expect(plan.dispatch).toEqual([]);
  });

  it('a scheduled instance goes through the census like any card', () => {
    const foreign = template('foreign', 'function: write\nrequest: article\norigin: stranger\ntrigger:\n  every: day\n');
    const plan = planRound(snapshot({ templates: [foreign] }), settings(), NOW);
    expect(plan.scheduled.map((s) => s.instance)).toEqual(['2026-08-20-foreign.md']);
    expect(plan.dispatch).toEqual([]);
    expect(plan.blocked).toEqual([{ card: '2026-08-20-foreign.md', reason: 'foreign origin "stranger" (not in trusted_origins)', new: true }]);
  });

  it('reports unreadable templates, profiles and cards without crashing the round', () => {
    const bad = { ok: false as const, file: 'x', problems: [{ file: 'x', field: 'f', reason: 'r' }] };
    const plan = planRound(snapshot({ templates: [bad], profiles: [writer, bad], pending: [bad, pending('a.md')], inProgress: [bad] }), settings(), NOW);
    expect(plan.templateProblems).toEqual(bad.problems);
    expect(plan.profileProblems).toEqual(bad.problems);
    expect(plan.invalid).toEqual([...bad.problems, ...bad.problems]);
    expect(plan.dispatch.map((d) => d.card)).toEqual(['a.md']);
  });

  it('trusts the names of director profiles as origins, not of workers', () => {
    const chief = director({ name: 'chief', function: 'direct', handles: ['flow'] });
    const plan = planRound(snapshot({ profiles: [writer, transcriber, chief], pending: [pending('d.md', { origin: 'chief' }), pending('w.md', { origin: 'writer' })] }), settings(), NOW);
    expect(plan.dispatch.map((d) => d.card)).toEqual(['d.md']);
    expect(plan.blocked).toEqual([{ card: 'w.md', reason: 'foreign origin "writer" (not in trusted_origins)', new: true }]);
  });

  it('leaves out both profiles that share a name, with a problem for each', () => {
    const a = profile({ name: 'writer', function: 'write', handles: ['blog post'] });
    const b = { ...profile({ name: 'writer', function: 'write', handles: ['essay'] }), file: 'AGENTS/writer-2/PROFILE.md' };
    const plan = planRound(snapshot({ profiles: [a, b, transcriber], pending: [pending('a.md'), pending('r.md', { recipient: 'writer' })] }), settings(), NOW);
    expect(plan.profiles).toEqual([{ name: 'transcriber', path: 'AGENTS/transcriber/PROFILE.md' }]);
    expect(plan.profileProblems).toEqual([
      { file: 'AGENTS/writer/PROFILE.md', field: 'name', reason: expect.stringContaining('`name` "writer" is also declared by AGENTS/writer-2/PROFILE.md: two profiles cannot share a name') },
      { file: 'AGENTS/writer-2/PROFILE.md', field: 'name', reason: expect.stringContaining('`name` "writer" is also declared by AGENTS/writer/PROFILE.md') },
    ]);
    expect(plan.dispatch).toEqual([]);
    expect(plan.waiting).toEqual([
      { card: 'a.md', reason: 'no profile has function "write"', kind: 'unmatched' },
      { card: 'r.md', reason: 'addressed to "writer", which is no profile: a human\'s card', kind: 'human' },
    ]);
  });

  it('a duplicated director name is not trusted', () => {
    const c1 = director({ name: 'chief', function: 'direct', handles: ['flow'] });
    const c2 = { ...director({ name: 'chief', function: 'direct', handles: ['flow'] }), file: 'AGENTS/chief2/PROFILE.md' };
    const plan = planRound(snapshot({ profiles: [writer, c1, c2], pending: [pending('d.md', { origin: 'chief' })] }), settings(), NOW);
    expect(plan.blocked).toEqual([{ card: 'd.md', reason: 'foreign origin "chief" (not in trusted_origins)', new: true }]);
  });

  it('waits with a reason when the harness is missing, the model cell is missing, or private keys are absent', () => {
    const ghost = profile({ name: 'ghost', function: 'haunt', handles: ['house'], harness: 'nowhere' });
    const audio = profile({ name: 'audio', function: 'listen', handles: ['song'], model_modality: 'audio' });
    const plan = planRound(
      snapshot({
        profiles: [writer, transcriber, ghost, audio],
        pending: [
          pending('g.md', { function: 'haunt', request: 'the house' }),
          pending('m.md', { function: 'listen', request: 'this song' }),
          pending('k.md', { function: 'transcribe', request: 'audio' }),
          pending('ok.md'),
        ],
      }),
      settings({ privateKeys: new Set() }),
      NOW,
    );
    expect(plan.dispatch.map((d) => d.card)).toEqual(['ok.md']);
    expect(plan.waiting).toEqual([
      { card: 'g.md', reason: 'profile ghost needs harness "nowhere", which is not installed', kind: 'harness' },
      { card: 'k.md', reason: 'harness "remote" needs private keys API_KEY, absent from private_env', kind: 'keys' },
      { card: 'm.md', reason: 'models.yml has no audio model of capacity "standard" for harness "local"', kind: 'model' },
    ]);
  });

  it('dispatches urgent first, then oldest, up to max dispatches; the rest wait', () => {
    const cards = [
      pending('old.md', { created: '2026-08-01' }),
      pending('new.md', { created: '2026-08-19T23:00:00Z' }),
      pending('urgent-new.md', { created: '2026-08-20T08:00:00Z', priority: 'urgent' }),
      pending('mid.md', { created: '2026-08-10 12:00' }),
    ];
    const plan = planRound(snapshot({ pending: cards }), settings({ maxDispatches: 2 }), NOW);
    expect(plan.dispatch.map((d) => d.card)).toEqual(['urgent-new.md', 'old.md']);
    expect(plan.waiting).toEqual([
      { card: 'mid.md', reason: "ready for writer, but this round's max_dispatches_per_round (2) is reached", kind: 'capacity' },
      { card: 'new.md', reason: "ready for writer, but this round's max_dispatches_per_round (2) is reached", kind: 'capacity' },
    ]);
  });

  it('carries the card attempts into the dispatch', () => {
    const plan = planRound(snapshot({ pending: [pending('a.md', { attempts: 2 })] }), settings(), NOW);
    expect(plan.dispatch.map((d) => [d.card, d.attempts])).toEqual([['a.md', 2]]);
  });

  it('max dispatches of 0 dispatches nothing', () => {
    const plan = planRound(snapshot({ pending: [pending('a.md')] }), settings({ maxDispatches: 0 }), NOW);
    expect(plan.dispatch).toEqual([]);
    expect(plan.waiting.map((w) => w.card)).toEqual(['a.md']);
  });

  it('census: already blocked shown as not new; exhausted and suspicious blocked as new; missing input waits; unmatched and ambiguous wait', () => {
    const twin = profile({ name: 'twin', function: 'write', handles: ['poem'] });
    const twin2 = profile({ name: 'twin-2', function: 'write', handles: ['poem'] });
    const plan = planRound(
      snapshot({
        profiles: [writer, twin, twin2],
        pending: [
          pending('b.md', { blocked: '2026-08-01 old reason' }),
          pending('x.md', { attempts: 3 }),
          pending('s.md', { inputs: { src: '../../etc/passwd' } }),
          pending('w.md', { inputs: { dependent_task: 'KANBAN/done/child.md' } }),
          pending('u.md', { request: 'a limerick' }),
          pending('p.md', { request: 'a poem' }),
          pending('h.md', { recipient: 'Ana' }),
        ],
      }),
      settings(),
      NOW,
    );
    expect(plan.dispatch).toEqual([]);
    expect(plan.blocked).toEqual([
      { card: 'b.md', reason: 'blocked: 2026-08-01 old reason', new: false },
      { card: 's.md', reason: 'suspicious input src: "../../etc/passwd" leads outside the vault', new: true },
      { card: 'x.md', reason: 'attempts exhausted (3 of max_attempts 3)', new: true },
    ]);
    expect(plan.waiting).toEqual([
      { card: 'h.md', reason: 'addressed to "Ana", which is no profile: a human\'s card', kind: 'human' },
      { card: 'p.md', reason: 'ambiguous: twin, twin-2 tie on descriptors of 4 characters (twin: "poem"; twin-2: "poem")', kind: 'ambiguous', profiles: ['twin', 'twin-2'] },
      {
        card: 'u.md',
        reason: 'no "write" profile handles this request: a profile needs a new descriptor, or this is the next agent to write',
        kind: 'unmatched',
      },
      { card: 'w.md', reason: 'waiting for input dependent_task: KANBAN/done/child.md does not exist yet', kind: 'input' },
    ]);
  });

  it('an existing input lets the card through', () => {
    const plan = planRound(
      snapshot({ pending: [pending('w.md', { inputs: { dependent_task: 'KANBAN/done/child.md' } })], inputs: new Map([['KANBAN/done/child.md', { exists: true, inside: true }]]) }),
      settings(),
      NOW,
    );
    expect(plan.dispatch.map((d) => d.card)).toEqual(['w.md']);
  });

  it('sweeps zombies from in-progress, looking runs up by run id', () => {
    const claimed = '2026-08-20T06:00:00Z'; // 3h15m before NOW
    const inProgress = [
      pending('torn.md', { agent: 'writer' }),
      pending('alive.md', { agent: 'writer', claimed }),
      pending('expired.md', { agent: 'writer', claimed, attempts: 2 }),
      pending('never.md', { agent: 'writer', claimed }),
      pending('blocked.md', { agent: 'writer', claimed, blocked: '2026-08-19 x' }),
    ];
    const runs = new Map<string, RunFact>([
      ['alive.20260820T060000Z.a0', { state: 'started', pid: 1, alive: true }],
      ['expired.20260820T060000Z.a2', { state: 'started', pid: 2 }],
    ]);
    const plan = planRound(snapshot({ inProgress, runs }), settings({ zombieAfterMs: 4 * 3_600_000 }), NOW);
    expect(plan.zombies).toEqual([
      { card: 'never.md', kind: 'never-started', reason: 'claimed 3h15m ago but its worker never started', attempts: 0, claim: claimed, runId: 'never.20260820T060000Z.a0' },
      { card: 'torn.md', kind: 'torn', reason: 'torn claim: in in-progress/ without `claimed`', attempts: 0 },
    ]);
    const plan2 = planRound(snapshot({ inProgress, runs }), settings(), NOW);
    expect(plan2.zombies.map((z) => [z.card, z.kind, z.attempts, z.block])).toEqual([
      ['alive.md', 'expired', 1, undefined],
      ['expired.md', 'expired', 3, `${STAMP} zombie: claimed by writer 3h15m ago (zombie_after 2h); attempts exhausted (3 of max_attempts 3)`],
      ['never.md', 'never-started', 0, undefined],
      ['torn.md', 'torn', 0, undefined],
    ]);
    expect(plan2.blocked).toEqual([{ card: 'blocked.md', reason: 'blocked: 2026-08-19 x', new: false }]);
  });
});
