import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tickCommand } from '../../src/commands/tick.js';
import { dryRunCommand } from '../../src/commands/dry-run.js';
import type { CommandEnv } from '../../src/commands/common.js';
import { silentLogger } from '../../src/log.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { FakeSpawner, card, exists, makeBoard, pendingCard, profile, read, snapshotTree } from '../helpers/vault.js';

const NOW = '2026-12-02T10:00:00.000Z';

function commandEnv(root: string): CommandEnv & { out: string[] } {
  const out: string[] = [];
  return { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW), out };
}

async function tick(root: string, spawner = new FakeSpawner(), now = NOW) {
  const env = commandEnv(root);
  const code = await tickCommand({ now, json: true }, env, spawner);
  return { code, spawner, json: JSON.parse(env.out.join('')) as Record<string, any> };
}

async function dryRun(root: string, now = NOW) {
  const env = commandEnv(root);
  const code = await dryRunCommand({ now, json: true }, env);
  return { code, json: JSON.parse(env.out.join('')) as Record<string, any> };
}

const WRITER = profile('writer', `
function: write
handles: [draft, blog post draft]
refuses: [confidential]
skills: [write-in-own-voice]
`);
const EDITOR = profile('editor', `
function: write
handles: [edits, blog post]
model_capacity: advanced
skills: [edit-text]
`);

const basicCard = (extra = '') => pendingCard(extra);

describe('tick: dispatch', () => {
  it('claims a matched card into in-progress/, stamps it and hands the run to the spawner', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/editor/PROFILE.md': EDITOR,
      'KANBAN/pending/post.md': basicCard(),
    });
    const { code, spawner, json } = await tick(root);
    expect(code).toBe(0);
    expect(json.dispatch).toEqual([
      { card: 'post.md', profile: 'writer', harness: 'fake', model: 'fake-medium', via: 'funnel', descriptor: 'blog post draft' },
    ]);
    expect(exists(root, 'vault/KANBAN/pending/post.md')).toBe(false);
    const claimed = parseFrontMatter(read(root, 'vault/KANBAN/in-progress/post.md'));
    expect(claimed.data).toMatchObject({ agent: 'writer', claimed: NOW, model: 'fake-medium', attempts: 0 });
    expect(claimed.body).toContain('\nBody text.\n');
    expect(claimed.body).toMatch(/## Record\n\n- 2026-12-02 10:00\n {4}- board: claimed for writer \(matched handles "blog post draft"\); harness fake, model fake-medium\.\n$/);

    expect(spawner.jobs).toHaveLength(1);
    const job = spawner.jobs[0]!;
    const vault = path.join(root, 'vault');
    expect(job.command.file).toBe(path.join(root, 'harnesses/fake-agent'));
    expect(job.command.args).toEqual([
      '--model',
      'fake-medium',
      `profile=${path.join(vault, 'AGENTS/writer/PROFILE.md')} card=${path.join(vault, 'KANBAN/in-progress/post.md')}`,
    ]);
    expect(job.command.env).toMatchObject({ BOARD_CARD: path.join(vault, 'KANBAN/in-progress/post.md'), BOARD_CLAIM: NOW, BOARD_VAULT: vault });
    expect(job.command.cwd).toBe(vault);
    expect(job.claim).toBe(NOW);
  });

  it('keeps every front matter line and the body byte for byte, CRLF included', async () => {
    const original = [
      '---',
      '# a comment the owner wrote',
      'function:   write      # odd spacing',
      'request: "Write a blog post draft"',
      'created: 2026-12-01 09:00',
      'origin: human',
      'inputs:',
      '  # nested comment',
      '  notes: "notes/a.md"',
      'paths: []',
      'attempts: 0',
      'tags:',
      '- kanban',
      '- agents',
      'description: |',
      '  multi',
      '  line',
      '---',
      '',
      'Body with trailing spaces   ',
      '## Record',
      '- 2026-12-01 09:00',
      '    - human: card written.',
      '',
      '## Notes',
      'after the record',
      '',
    ].join('\r\n');
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': original, 'notes/a.md': 'x' });
    await tick(root);
    const after = read(root, 'vault/KANBAN/in-progress/post.md');
    const beforeLines = original.split('\r\n');
    const fmEnd = beforeLines.indexOf('---', 1);
    const afterLines = after.split('\r\n');
    // Every original front matter line is still there, in order; new keys come after the last one.
    expect(afterLines.slice(0, fmEnd)).toEqual(beforeLines.slice(0, fmEnd));
    expect(afterLines.slice(fmEnd, fmEnd + 3)).toEqual(['agent: writer', `claimed: '${NOW}'`, 'model: fake-medium']);
    expect(afterLines[fmEnd + 3]).toBe('---');
    // The body is only appended to, inside the Record section, before "## Notes".
    expect(after).toContain('    - human: card written.\r\n- 2026-12-02 10:00\r\n    - board: claimed for writer');
    expect(after.endsWith('\r\n## Notes\r\nafter the record\r\n')).toBe(true);
    expect(after).not.toMatch(/[^\r]\n/);
  });

  it('dispatches urgent first, then oldest, up to max_dispatches_per_round', async () => {
    const root = makeBoard(
      {
        'AGENTS/writer/PROFILE.md': WRITER,
        'KANBAN/pending/a-old.md': basicCard().replace('2026-12-01 09:00', '2026-11-01 09:00'),
        'KANBAN/pending/b-new.md': basicCard(),
        'KANBAN/pending/c-urgent.md': basicCard('priority: urgent').replace('2026-12-01 09:00', '2026-12-01 23:00'),
      },
      { 'board.yml': `vault: vault\ndefault_harness: fake\nmax_dispatches_per_round: 2\n` },
    );
    const { json } = await tick(root);
    expect(json.dispatch.map((d: { card: string }) => d.card)).toEqual(['c-urgent.md', 'a-old.md']);
    expect(json.waiting).toEqual([expect.objectContaining({ card: 'b-new.md', reason: expect.stringContaining('max_dispatches_per_round (2)') })]);
    expect(exists(root, 'vault/KANBAN/pending/b-new.md')).toBe(true);
  });

  it("claims a round's cards side by side, and still starts their workers one at a time in the plan's order", async () => {
    // A spawner whose first start waits until every other card of the round is claimed (stamped
    // in in-progress/): with claims made one after the other that never happens, and the tick
    // would hang on it.
    const names = ['a-old.md', 'b-new.md', 'c-urgent.md', 'd-newer.md'];
    const root = makeBoard(
      {
        'AGENTS/writer/PROFILE.md': WRITER,
        'KANBAN/pending/a-old.md': basicCard().replace('2026-12-01 09:00', '2026-11-01 09:00'),
        'KANBAN/pending/b-new.md': basicCard(),
        'KANBAN/pending/c-urgent.md': basicCard('priority: urgent').replace('2026-12-01 09:00', '2026-12-01 23:00'),
        'KANBAN/pending/d-newer.md': basicCard().replace('2026-12-01 09:00', '2026-12-01 10:00'),
      },
      { 'board.yml': `vault: vault\ndefault_harness: fake\nmax_dispatches_per_round: 4\n` },
    );
    const stamped = () => names.filter((n) => exists(root, `vault/KANBAN/in-progress/${n}`) && read(root, `vault/KANBAN/in-progress/${n}`).includes('\nclaimed: '));
    const seenAtFirstStart: string[][] = [];
    class WaitingSpawner extends FakeSpawner {
      override async start(job: Parameters<FakeSpawner['start']>[0]) {
        if (this.jobs.length === 0) {
          const deadline = Date.now() + 3_000;
          while (stamped().length < names.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
          seenAtFirstStart.push(stamped());
        }
        return super.start(job);
      }
    }
    const { code, spawner, json } = await tick(root, new WaitingSpawner());
    expect(code).toBe(0);
    expect(seenAtFirstStart).toEqual([names]);
    const order = ['c-urgent.md', 'a-old.md', 'b-new.md', 'd-newer.md'];
    expect(json.dispatch.map((d: { card: string }) => d.card)).toEqual(order);
    expect(spawner.jobs.map((j) => path.basename(j.card))).toEqual(order);
    expect(json.transitions.filter((t: { kind: string }) => t.kind === 'spawned').map((t: { card: string }) => t.card)).toEqual(order);
    // Each claim its own token, as before: the round's clock plus its place in the plan.
    expect(spawner.jobs.map((j) => j.claim)).toEqual(['2026-12-02T10:00:00.000Z', '2026-12-02T10:00:00.001Z', '2026-12-02T10:00:00.002Z', '2026-12-02T10:00:00.003Z']);
  });

  it('never replaces a card already in in-progress/: the clash is reported and both files stay', async () => {
    const inProgress = basicCard(`agent: writer\nclaimed: '${NOW}'`);
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/post.md': basicCard(), 'KANBAN/in-progress/post.md': inProgress });
    fs.mkdirSync(path.join(root, 'vault/KANBAN/.runs'), { recursive: true });
    fs.writeFileSync(path.join(root, 'vault/KANBAN/.runs/post.20261202T100000000Z.a0.json'), JSON.stringify({ state: 'started', host: 'elsewhere' }));
    const before = read(root, 'vault/KANBAN/pending/post.md');
    const { json, spawner } = await tick(root);
    expect(json.transitions).toContainEqual(expect.objectContaining({ kind: 'failed', card: 'post.md', detail: expect.stringContaining('already exists') }));
    expect(read(root, 'vault/KANBAN/pending/post.md')).toBe(before);
    expect(read(root, 'vault/KANBAN/in-progress/post.md')).toBe(inProgress);
    expect(spawner.jobs).toHaveLength(0);
  });

  it('sends a recipient card straight to the named profile and leaves a human recipient waiting', async () => {
    const root = makeBoard({
      'AGENTS/editor/PROFILE.md': EDITOR,
      'KANBAN/pending/push.md': basicCard('recipient: editor\npush_reason: needs the editor'),
      'KANBAN/pending/human.md': basicCard('recipient: marcos'),
    });
    const { json } = await tick(root);
    expect(json.dispatch).toEqual([expect.objectContaining({ card: 'push.md', profile: 'editor', via: 'recipient', model: 'fake-large' })]);
    expect(json.waiting).toEqual([expect.objectContaining({ card: 'human.md', kind: 'human', reason: expect.stringContaining('addressed to "marcos"') })]);
  });
});

describe('tick: census', () => {
  const cases: [string, string, string, 'waiting' | 'blocked', RegExp][] = [
    ['foreign', basicCard().replace('origin: human', 'origin: stranger'), '', 'blocked', /foreign origin "stranger"/],
    ['exhausted', basicCard().replace('attempts: 0', 'attempts: 3'), '', 'blocked', /attempts exhausted \(3 of max_attempts 3\)/],
    ['missing-input', basicCard('inputs:\n  notes: notes/later.md'), '', 'waiting', /waiting for input notes: notes\/later\.md does not exist yet/],
    ['traversal', basicCard('inputs:\n  notes: ../../etc/passwd'), '', 'blocked', /suspicious input notes: "..\/..\/etc\/passwd" leads outside the vault/],
    ['absolute', basicCard('inputs:\n  notes: /etc/passwd'), '', 'blocked', /suspicious input notes/],
    ['unmatched', basicCard().replace('Write a blog post draft about kanban', 'Paint a picture'), '', 'waiting', /no "write" profile handles this request/],
    ['no-function', basicCard().replace('function: write', 'function: translate'), '', 'waiting', /no profile has function "translate"/],
    ['refused', basicCard().replace('about kanban', 'about the confidential merger'), '', 'waiting', /refused by writer/],
  ];
  for (const [name, text, , bucket, reason] of cases) {
    it(`${name}: ${bucket}`, async () => {
      const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, [`KANBAN/pending/${name}.md`]: text });
      const { json, spawner } = await tick(root);
      expect(json[bucket]).toEqual([expect.objectContaining({ card: `${name}.md`, reason: expect.stringMatching(reason) })]);
      expect(spawner.jobs).toHaveLength(0);
      expect(exists(root, `vault/KANBAN/pending/${name}.md`)).toBe(true);
      const after = parseFrontMatter(read(root, `vault/KANBAN/pending/${name}.md`)).data;
      if (bucket === 'blocked') expect(after.blocked).toMatch(/^2026-12-02 10:00 /);
      else expect(after.blocked).toBeUndefined();
    });
  }

  it('blocks an input that is a link leading outside the vault', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/link.md': basicCard('inputs:\n  notes: notes/secret.md') });
    fs.mkdirSync(path.join(root, 'vault/notes'));
    fs.symlinkSync(os.homedir(), path.join(root, 'vault/notes/secret.md'));
    const { json } = await tick(root);
    expect(json.blocked).toEqual([expect.objectContaining({ card: 'link.md', reason: expect.stringContaining('leads outside the vault') })]);
  });

  it('leaves an already blocked card untouched and reports it', async () => {
    const text = basicCard('blocked: 2026-11-30 09:00 waiting for legal');
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/pending/held.md': text });
    const { json } = await tick(root);
    expect(json.blocked).toEqual([{ card: 'held.md', reason: 'blocked: 2026-11-30 09:00 waiting for legal', new: false }]);
    expect(read(root, 'vault/KANBAN/pending/held.md')).toBe(text);
  });

  it('declares an unreadable card with its reason and never rewrites it', async () => {
    const broken = '---\nfunction: write\nrequest: [unclosed\n---\n';
    const noFm = 'just text, no front matter\n';
    const wrongType = card('function: write\nrequest: x\ncreated: 2026-12-01\norigin: human\nattempts: many');
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'KANBAN/pending/broken.md': broken,
      'KANBAN/pending/no-fm.md': noFm,
      'KANBAN/pending/wrong-type.md': wrongType,
    });
    const { code, json } = await tick(root);
    expect(code).toBe(0);
    expect(json.invalid).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'broken.md', reason: expect.stringContaining('invalid YAML') }),
        expect.objectContaining({ file: 'no-fm.md', reason: expect.stringContaining('no front matter') }),
        expect.objectContaining({ file: 'wrong-type.md', field: 'attempts' }),
      ]),
    );
    expect(read(root, 'vault/KANBAN/pending/broken.md')).toBe(broken);
    expect(read(root, 'vault/KANBAN/pending/no-fm.md')).toBe(noFm);
    expect(read(root, 'vault/KANBAN/pending/wrong-type.md')).toBe(wrongType);
  });

  it('reports a profile that fails its schema with file and field, and goes on', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/broken/PROFILE.md': profile('broken', 'function: write\nhandles: [draft]\nskills: [a]\nprofiles: [b]\nfailure_policy: stop'),
      'KANBAN/pending/post.md': basicCard(),
    });
    const { json } = await tick(root);
    expect(json.problems).toEqual([expect.objectContaining({ file: 'AGENTS/broken/PROFILE.md', field: 'skills', reason: expect.stringContaining('never both') })]);
    expect(json.dispatch).toHaveLength(1);
  });

  it('leaves an ambiguous card waiting and names the tied profiles', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/editor/PROFILE.md': EDITOR,
      'KANBAN/pending/tie.md': basicCard().replace('Write a blog post draft about kanban', 'Edits to this draft'),
    });
    const { json, spawner } = await tick(root);
    expect(json.waiting).toEqual([expect.objectContaining({ card: 'tie.md', kind: 'ambiguous', reason: expect.stringMatching(/^ambiguous: editor, writer tie/) })]);
    expect(spawner.jobs).toHaveLength(0);
  });
});

describe('tick: scheduled cards', () => {
  const template = card(`
function: write
request: Write the daily blog post draft
origin: scheduler
paths: []
attempts: 0
trigger:
  every: day
  time: "08:00"
`, '\nTemplate body.\n');

  it('writes the due instance and dispatches it in the same round, once per period', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/scheduled/daily.md': template });
    const first = await tick(root);
    expect(first.json.scheduled).toEqual([{ template: 'scheduled/daily.md', instance: '2026-12-02-daily.md' }]);
    expect(first.json.dispatch).toEqual([expect.objectContaining({ card: '2026-12-02-daily.md', profile: 'writer' })]);
    const instance = parseFrontMatter(read(root, 'vault/KANBAN/in-progress/2026-12-02-daily.md'));
    expect(instance.data.trigger).toBeUndefined();
    expect(instance.data).toMatchObject({ created: NOW, attempts: 0, paths: [], origin: 'scheduler' });
    expect(instance.body).toContain('Template body.');
    const second = await tick(root, new FakeSpawner(), '2026-12-02T11:00:00.000Z');
    expect(second.json.scheduled).toEqual([]);
  });

  it('does not write before `time`, nor when inactive', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'KANBAN/scheduled/daily.md': template,
      'KANBAN/scheduled/off.md': template.replace('time: "08:00"', 'time: "08:00"\n  active: false'),
    });
    expect((await tick(root, new FakeSpawner(), '2026-12-02T07:59:00.000Z')).json.scheduled).toEqual([]);
    expect((await tick(root, new FakeSpawner(), '2026-12-02T08:00:00.000Z')).json.scheduled).toEqual([{ template: 'scheduled/daily.md', instance: '2026-12-02-daily.md' }]);
  });

  it('finds an instance already archived and writes nothing', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/scheduled/daily.md': template, 'KANBAN/archive/2026-12/2026-12-02-daily.md': basicCard() });
    expect((await tick(root)).json.scheduled).toEqual([]);
  });
});

describe('tick: zombies', () => {
  const claimedCard = (claimed: string, attempts = 0) =>
    basicCard(`agent: writer\nclaimed: '${claimed}'\nmodel: fake-medium`).replace('attempts: 0', `attempts: ${attempts}`);
  const runRecord = (root: string, id: string, record: object) => {
    fs.mkdirSync(path.join(root, 'vault/KANBAN/.runs'), { recursive: true });
    fs.writeFileSync(path.join(root, `vault/KANBAN/.runs/${id}.json`), JSON.stringify(record));
  };

  it('returns an expired claim to pending/ with attempts + 1 and a Record line', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/old.md': claimedCard('2026-12-02T07:00:00.000Z') });
    runRecord(root, 'old.20261202T070000000Z.a0', { state: 'started', host: 'another-host', pid: 1 });
    const { json } = await tick(root);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'old.md', kind: 'expired', attempts: 1 })]);
    const back = parseFrontMatter(read(root, 'vault/KANBAN/pending/old.md'));
    expect(back.data).toMatchObject({ attempts: 1 });
    expect(back.data.agent).toBeUndefined();
    expect(back.data.claimed).toBeUndefined();
    expect(back.body).toMatch(/board: zombie: claimed by writer 3h ago \(zombie_after 2h\); returned to pending\/ \(attempt 1 of 3\)\./);
    // Swept after dispatch: not dispatched again in the same round.
    expect(json.dispatch).toEqual([]);
  });

  it('blocks a zombie whose reclaim exhausts max_attempts', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/old.md': claimedCard('2026-12-02T07:00:00.000Z', 2) });
    runRecord(root, 'old.20261202T070000000Z.a2', { state: 'started', host: 'another-host', pid: 1 });
    await tick(root);
    const back = parseFrontMatter(read(root, 'vault/KANBAN/pending/old.md')).data;
    expect(back.attempts).toBe(3);
    expect(back.blocked).toMatch(/^2026-12-02 10:00 zombie: .*attempts exhausted \(3 of max_attempts 3\)$/);
  });

  it('reclaims at once a claim whose worker exited without closing', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/dead.md': claimedCard('2026-12-02T09:59:00.000Z') });
    runRecord(root, 'dead.20261202T095900000Z.a0', { state: 'exited', host: os.hostname(), exitCode: 3 });
    const { json } = await tick(root);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'dead.md', kind: 'dead-worker', attempts: 1, reason: expect.stringContaining('exit code 3') })]);
    expect(exists(root, 'vault/KANBAN/pending/dead.md')).toBe(true);
  });

  it('reclaims a young claim whose lease went stale on another host, and leaves one whose lease is fresh', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'KANBAN/in-progress/gone.md': claimedCard('2026-12-02T09:59:00.000Z'),
      'KANBAN/in-progress/live.md': claimedCard('2026-12-02T09:59:00.000Z'),
      'KANBAN/in-progress/old-supervisor.md': claimedCard('2026-12-02T09:59:00.000Z'),
    });
    const started = { state: 'started', host: 'another-host', pidns: 'pid:[1]', pid: 4242 };
    runRecord(root, 'gone.20261202T095900000Z.a0', { ...started, card: 'gone.md', leased: true });
    runRecord(root, 'live.20261202T095900000Z.a0', { ...started, card: 'live.md', leased: true });
    // A record from a supervisor that keeps no lease is judged by zombie_after alone, however old its mtime.
    runRecord(root, 'old-supervisor.20261202T095900000Z.a0', { ...started, card: 'old-supervisor.md' });
    const stale = new Date(Date.now() - 90_000);
    for (const id of ['gone', 'old-supervisor']) fs.utimesSync(path.join(root, `vault/KANBAN/.runs/${id}.20261202T095900000Z.a0.json`), stale, stale);
    const { json } = await tick(root);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'gone.md', kind: 'dead-worker', attempts: 1 })]);
    const back = parseFrontMatter(read(root, 'vault/KANBAN/pending/gone.md'));
    expect(back.data).toMatchObject({ attempts: 1 });
    expect(back.data.claimed).toBeUndefined();
    expect(back.body).toMatch(/board: lease went stale: its supervisor on another-host \(pid 4242\) has not refreshed it for 9\d s \(lease_stale_after 60 s\); its host is gone or cut off from the board; returned to pending\/ \(attempt 1 of 3\)\./);
    // Its supervisor, should its host come back, finds the card gone and this request to stop.
    expect(JSON.parse(read(root, 'vault/KANBAN/.runs/gone.20261202T095900000Z.a0.stop'))).toMatchObject({ reason: 'reclaimed' });
    expect(exists(root, 'vault/KANBAN/in-progress/live.md')).toBe(true);
    expect(exists(root, 'vault/KANBAN/in-progress/old-supervisor.md')).toBe(true);
  });

  it('honours lease_stale_after from board.yml', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/gone.md': claimedCard('2026-12-02T09:59:00.000Z') });
    fs.appendFileSync(path.join(root, 'board.yml'), 'lease_stale_after: 5m\n');
    runRecord(root, 'gone.20261202T095900000Z.a0', { state: 'started', host: 'another-host', pid: 4242, card: 'gone.md', leased: true });
    const stale = new Date(Date.now() - 90_000);
    fs.utimesSync(path.join(root, 'vault/KANBAN/.runs/gone.20261202T095900000Z.a0.json'), stale, stale);
    expect((await tick(root)).json.zombies).toEqual([]);
  });

  it('returns a torn claim (no `claimed`) without spending an attempt', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/torn.md': basicCard() });
    const { json } = await tick(root);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'torn.md', kind: 'torn', attempts: 0 })]);
    expect(parseFrontMatter(read(root, 'vault/KANBAN/pending/torn.md')).data.attempts).toBe(0);
  });

  it('returns a claim whose worker never started, and marks its run abandoned so it can never start late', async () => {
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/lost.md': claimedCard('2026-12-02T09:00:00.000Z') });
    const { json } = await tick(root);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'lost.md', kind: 'never-started', attempts: 0 })]);
    expect(JSON.parse(read(root, 'vault/KANBAN/.runs/lost.20261202T090000000Z.a0.json')).state).toBe('abandoned');
    expect(exists(root, 'vault/KANBAN/pending/lost.md')).toBe(true);
  });

  it('leaves a fresh claim alone', async () => {
    const text = claimedCard('2026-12-02T09:59:00.000Z');
    const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER, 'KANBAN/in-progress/fresh.md': text });
    runRecord(root, 'fresh.20261202T095900000Z.a0', { state: 'started', host: 'another-host', pid: 1 });
    const { json } = await tick(root);
    expect(json.zombies).toEqual([]);
    expect(read(root, 'vault/KANBAN/in-progress/fresh.md')).toBe(text);
  });
});

describe('dry-run', () => {
  it('prints the plan tick would execute and writes nothing at all', async () => {
    const root = makeBoard({
      'AGENTS/writer/PROFILE.md': WRITER,
      'AGENTS/editor/PROFILE.md': EDITOR,
      'KANBAN/pending/post.md': basicCard(),
      'KANBAN/pending/foreign.md': basicCard().replace('origin: human', 'origin: stranger'),
      'KANBAN/in-progress/old.md': basicCard(`agent: writer\nclaimed: '2026-12-01T00:00:00.000Z'`),
      'KANBAN/scheduled/daily.md': card('function: write\nrequest: daily blog post draft\norigin: scheduler\ntrigger:\n  every: day'),
    });
    const before = snapshotTree(root);
    const { code, json } = await dryRun(root);
    expect(code).toBe(0);
    expect(snapshotTree(root)).toEqual(before);
    expect(json.scheduled).toEqual([{ template: 'scheduled/daily.md', instance: '2026-12-02-daily.md' }]);
    expect(json.dispatch.map((d: { card: string }) => d.card).sort()).toEqual(['2026-12-02-daily.md', 'post.md']);
    expect(json.blocked).toEqual([expect.objectContaining({ card: 'foreign.md', new: true })]);
    expect(json.zombies).toEqual([expect.objectContaining({ card: 'old.md' })]);

    // The same plan, executed.
    const ticked = await tick(root);
    for (const key of ['scheduled', 'dispatch', 'waiting', 'blocked', 'zombies']) expect(ticked.json[key]).toEqual(json[key]);
  });
});
