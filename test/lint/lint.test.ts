import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gatherLintInput } from '../../src/lint/gather.js';
import { lint, type Finding } from '../../src/lint/index.js';
import { card, makeBoard, profile } from '../helpers/vault.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

const SKILL = '---\nname: s\n---\n';
const WRITER = profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post]');
const GOOD_CARD = card('function: write\nrequest: a blog post\ncreated: 2026-12-01 09:00\norigin: human\nattempts: 0\npaths: []');

/** A clean board plus `vault` overrides (a value of undefined removes a file). */
async function findingsFor(vault: Record<string, string>, extra: Record<string, string> = {}): Promise<Finding[]> {
  const root = makeBoard(
    {
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/writer/skills/write-post/SKILL.md': SKILL,
      'KANBAN/pending/good.md': GOOD_CARD,
      ...vault,
    },
    extra,
  );
  return lint(await gatherLintInput({ config: 'board.yml', cwd: root, env: {} }));
}

const summary = (fs: Finding[]) => fs.map((f) => `${f.check} ${f.file}${f.field ? ` ${f.field}` : ''}`);

describe('board lint', () => {
  it('is clean on a sound board', async () => {
    expect(await findingsFor({})).toEqual([]);
  });

  it('schema: a profile, a card, a template, a harness and the models table, each with file, field and reason', async () => {
    const found = await findingsFor(
      {
        'AGENTS/broken/PROFILE.md': profile('Broken Name', 'function: write\nhandles: [essay]\nskills: [x]\nmodel_capacity: huge'),
        'AGENTS/broken/skills/x/SKILL.md': SKILL,
        'KANBAN/pending/bad.md': card('function: write\nrequest: a blog post\ncreated: yesterday\norigin: human'),
        'KANBAN/done/unparsable.md': '---\nfunction: [write\n---\n',
        'KANBAN/scheduled/weekly.md': card('function: write\nrequest: a blog post\norigin: scheduler\ntrigger:\n  every: week\n  day: 12'),
      },
      { 'harnesses/fake.yml': 'command: "fake-agent {prompt}"\nprompt_template: p\ncredential_guard: guard.sh\n', 'models.yml': 'fake:\n  standard: 3\n' },
    );
    const s = summary(found);
    expect(s).toContain('schema AGENTS/broken/PROFILE.md name');
    expect(s).toContain('schema AGENTS/broken/PROFILE.md model_capacity');
    expect(s).toContain('schema KANBAN/pending/bad.md created');
    expect(s.some((x) => x.startsWith('schema KANBAN/done/unparsable.md'))).toBe(true);
    expect(s).toContain('schema KANBAN/scheduled/weekly.md trigger.day');
    expect(s.some((x) => /^schema \S+harnesses\/fake\.yml command$/.test(x))).toBe(true);
    expect(s.some((x) => /^schema \S+models\.yml fake\.standard$/.test(x))).toBe(true);
    for (const f of found) expect(f.reason.length).toBeGreaterThan(0);
  });

  it('schema: two profiles with one name are both reported', async () => {
    const found = await findingsFor({ 'AGENTS/writer-2/PROFILE.md': WRITER.replace('blog post', 'essay'), 'AGENTS/writer-2/skills/write-post/SKILL.md': SKILL });
    expect(summary(found).filter((x) => x.endsWith(' name'))).toEqual(['schema AGENTS/writer-2/PROFILE.md name', 'schema AGENTS/writer/PROFILE.md name']);
  });

  it('rank: both lists, neither, a half director, and a `rank:` field', async () => {
    const found = await findingsFor({
      'AGENTS/both/PROFILE.md': profile('both', 'function: edit\nhandles: [both]\nskills: [x]\nprofiles: [writer]\nfailure_policy: block'),
      'AGENTS/both/skills/x/SKILL.md': SKILL,
      'AGENTS/neither/PROFILE.md': profile('neither', 'function: edit\nhandles: [neither]'),
      'AGENTS/half/PROFILE.md': profile('half', 'function: edit\nhandles: [half]\nprofiles: [writer]'),
      'AGENTS/ranked/PROFILE.md': profile('ranked', 'function: edit\nhandles: [ranked]\nrank: worker\nskills: [x]'),
      'AGENTS/ranked/skills/x/SKILL.md': SKILL,
    });
    const rank = found.filter((f) => f.check === 'rank');
    expect(summary(rank)).toEqual([
      'rank AGENTS/both/PROFILE.md skills',
      'rank AGENTS/half/PROFILE.md failure_policy',
      'rank AGENTS/neither/PROFILE.md skills',
      'rank AGENTS/ranked/PROFILE.md rank',
    ]);
    expect(rank[0]!.reason).toContain('never both');
    // The rank rule is reported once, by the rank check, not again as a schema finding.
    expect(found.filter((f) => f.check === 'schema')).toEqual([]);
  });

  it("ambiguity: the standard's check, with the round's own matcher: ties are ambiguous", async () => {
    const found = await findingsFor({
      // Both handle "blog post": as a request it ties between writer and twin.
      'AGENTS/twin/PROFILE.md': profile('twin', 'function: write\nhandles: [blog post, tweet]\nskills: [write-post]'),
      'AGENTS/twin/skills/write-post/SKILL.md': SKILL,
      // Differently written, equal once normalized: still a tie.
      'AGENTS/shouter/PROFILE.md': profile('shouter', 'function: write\nhandles: [TWEET!]\nskills: [write-post]'),
      'AGENTS/shouter/skills/write-post/SKILL.md': SKILL,
      // Same descriptor, other function: no conflict (level 1 separates them).
      'AGENTS/reader/PROFILE.md': profile('reader', 'function: read\nhandles: [blog post]\nskills: [write-post]'),
      'AGENTS/reader/skills/write-post/SKILL.md': SKILL,
    });
    const amb = found.filter((f) => f.check === 'ambiguity');
    expect(summary(amb)).toEqual([
      'ambiguity AGENTS/shouter/PROFILE.md handles.0',
      'ambiguity AGENTS/twin/PROFILE.md handles.0',
      'ambiguity AGENTS/twin/PROFILE.md handles.1',
      'ambiguity AGENTS/writer/PROFILE.md handles.0',
    ]);
    expect(amb.find((f) => f.file.includes('writer'))!.reason).toContain('ambiguous between twin, writer');
  });

  it('ambiguity: a descriptor its own refuses shadows lands elsewhere, or nowhere', async () => {
    const found = await findingsFor({
      // "long blog post" is refused by editor's own "long": as a request it lands on writer.
      'AGENTS/editor/PROFILE.md': profile('editor', 'function: write\nhandles: [long blog post, essay]\nrefuses: [long, essay]\nskills: [write-post]'),
      'AGENTS/editor/skills/write-post/SKILL.md': SKILL,
      // A longer descriptor never steals a shorter one: "post" stays poster's.
      'AGENTS/poster/PROFILE.md': profile('poster', 'function: write\nhandles: [post]\nskills: [write-post]'),
      'AGENTS/poster/skills/write-post/SKILL.md': SKILL,
    });
    const amb = found.filter((f) => f.check === 'ambiguity');
    expect(summary(amb)).toEqual(['ambiguity AGENTS/editor/PROFILE.md handles.0', 'ambiguity AGENTS/editor/PROFILE.md handles.1']);
    expect(amb[0]!.reason).toContain('refused by its own refuses "long", so it resolves to writer ("blog post")');
    expect(amb[1]!.reason).toContain('refused by its own refuses "essay": it can never match');
  });

  it('skills: every declared skill exists (a version suffix names the same folder); a director chains existing profiles', async () => {
    const found = await findingsFor({
      'AGENTS/writer/PROFILE.md': profile('writer', 'function: write\nhandles: [blog post]\nskills: [write-post@2, proofread]'),
      'AGENTS/chief/PROFILE.md': profile('chief', 'function: direct\nhandles: [newsletter]\nprofiles: [writer, illustrator]\nfailure_policy: block'),
    });
    expect(summary(found.filter((f) => f.check === 'skills'))).toEqual(['skills AGENTS/chief/PROFILE.md profiles.1', 'skills AGENTS/writer/PROFILE.md skills.1']);
  });

  it('harness-guard: a harness without a credential_guard, or naming a missing file (the lock rule)', async () => {
    const found = await findingsFor(
      {},
      {
        'harnesses/bare.yml': 'command: ["bare", "{prompt}"]\nprompt_template: p\n',
        'harnesses/dangling.yml': 'command: ["d", "{prompt}"]\nprompt_template: p\ncredential_guard: guards/missing.sh\n',
        'models.yml': 'fake:\n  standard: m\nbare:\n  standard: m\ndangling:\n  standard: m\n',
      },
    );
    const guards = found.filter((f) => f.check === 'harness-guard');
    expect(guards.map((f) => [path.basename(f.file), f.field])).toEqual([
      ['bare.yml', 'credential_guard'],
      ['dangling.yml', 'credential_guard'],
    ]);
    expect(guards[1]!.reason).toContain('does not exist');
  });

  it('models: a profile whose cell is missing, a profile on an uninstalled harness, a row for no harness', async () => {
    const found = await findingsFor(
      {
        'AGENTS/listener/PROFILE.md': profile('listener', 'function: transcribe\nhandles: [audio]\nmodel_modality: audio\nskills: [x]'),
        'AGENTS/listener/skills/x/SKILL.md': SKILL,
        'AGENTS/remote/PROFILE.md': profile('remote', 'function: fetch\nhandles: [page]\nharness: cloud\nskills: [x]'),
        'AGENTS/remote/skills/x/SKILL.md': SKILL,
      },
      { 'models.yml': 'fake:\n  minimum: s\n  standard: m\nghost:\n  standard: g\n' },
    );
    expect(summary(found.filter((f) => f.check === 'models')).map((s) => s.replace(/\S+models\.yml/, 'models.yml')).sort()).toEqual([
      'models AGENTS/listener/PROFILE.md model_capacity',
      'models AGENTS/remote/PROFILE.md harness',
      'models models.yml ghost',
    ]);
  });

  it('as a command: exit 1 with file/field/reason lines on findings, 0 on the example board, --json', () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/good.md': GOOD_CARD });
    const bad = spawnSync(process.execPath, [CLI, 'lint', '--config', 'board.yml'], { cwd: root, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('AGENTS/writer/PROFILE.md: skills.0: skill "write-post" is not there');
    const json = spawnSync(process.execPath, [CLI, 'lint', '--config', 'board.yml', '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, findings: [{ check: 'skills', file: 'AGENTS/writer/PROFILE.md', field: 'skills.0' }] });
    const clean = spawnSync(process.execPath, [CLI, 'lint', '--config', path.join(EXAMPLES, 'board.yml')], { encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
    expect(clean.stdout).toContain('lint: clean');
    expect(clean.status).toBe(0);
    const noConfig = spawnSync(process.execPath, [CLI, 'lint', '--config', 'nowhere.yml'], { cwd: root, encoding: 'utf8', env: { ...process.env, BOARD_CONFIG: '' } });
    expect(noConfig.status).toBe(2);
  });
});
