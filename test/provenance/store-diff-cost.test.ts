import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeCommand } from '../../src/core/compose.js';
import { harnessSchema } from '../../src/schema/harness.js';
import {
  ObjectStore,
  costFromText,
  diffRuns,
  jsonPath,
  recordRun,
  renderRunDiff,
  sha256,
  sumCosts,
  unifiedDiff,
  type RunManifest,
} from '../../src/provenance/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'board-prov-'));

describe('object store', () => {
  it('stores by sha256 under objects/ab/cdef…, idempotently and read-only', async () => {
    const logs = tmp();
    const store = new ObjectStore(logs);
    const hash = await store.put('hello\n');
    expect(hash).toBe(sha256('hello\n'));
    expect(store.pathOf(hash)).toBe(path.join(logs, 'objects', hash.slice(0, 2), hash.slice(2)));
    expect(await store.put('hello\n')).toBe(hash);
    expect(await store.getText(hash)).toBe('hello\n');
    expect(fs.readdirSync(path.dirname(store.pathOf(hash)))).toEqual([hash.slice(2)]);
    await Promise.all(Array.from({ length: 20 }, () => store.put('same bytes')));
    expect(await store.getText(sha256('same bytes'))).toBe('same bytes');
    expect(() => store.pathOf('../x')).toThrow();
  });
});

const harness = harnessSchema.parse({
  command: ['agent', '--model', '{model}', '{prompt}'],
  prompt_template: 'Profile {profile}. Card {card}.',
  environment_from_private: ['API_KEY'],
});

async function dispatchRun(logs: string, vault: string, runId: string, privateEnv = new Map([['API_KEY', 'sk-very-secret-value']])): Promise<RunManifest> {
  const profileFile = path.join(vault, 'AGENTS/writer/PROFILE.md');
  const cardFile = path.join(vault, 'KANBAN/in-progress/post.md');
  const composed = composeCommand({
    harness,
    model: 'm1',
    profile: profileFile,
    card: cardFile,
    vault,
    privateEnv,
    boardEnv: { BOARD_CARD: cardFile },
    fallbackPath: '/bin',
    resolveDir: (d) => d,
  });
  if (!composed.ok) throw new Error(composed.reason);
  const { manifest } = await recordRun({
    logsDir: logs,
    runId,
    card: 'post.md',
    cardText: '---\nfunction: write\nrequest: a post\n---\n',
    profile: 'writer',
    profileFile,
    vault,
    harnessName: 'h',
    harness,
    model: 'm1',
    claim: '2026-12-02T10:00:00.000Z',
    command: composed.command,
    paths: { profile: profileFile, card: cardFile, vault },
    log: path.join(logs, 'runs', `${runId}.log`),
    privateEnv,
  });
  return manifest;
}

function vaultWithProfile(profileBody: string): string {
  const vault = tmp();
  fs.mkdirSync(path.join(vault, 'AGENTS/writer/skills/draft'), { recursive: true });
  fs.writeFileSync(path.join(vault, 'AGENTS/writer/PROFILE.md'), profileBody);
  fs.writeFileSync(path.join(vault, 'AGENTS/writer/skills/draft/SKILL.md'), '# Draft\nWrite it.\n');
  return vault;
}

const PROFILE = '---\nname: writer\nversion: 1\nskills: [draft]\n---\n# Writer\n\nMission: drafts.\nQuality: good enough.\n';

describe('diff of two runs', () => {
  it('after a one-line profile edit names exactly the profile, with a one-line text diff', async () => {
    const logs = tmp();
    const vault = vaultWithProfile(PROFILE);
    const a = await dispatchRun(logs, vault, 'run-a');
    fs.writeFileSync(path.join(vault, 'AGENTS/writer/PROFILE.md'), PROFILE.replace('Quality: good enough.', 'Quality: excellent.'));
    const b = await dispatchRun(logs, vault, 'run-b');
    const diff = await diffRuns(new ObjectStore(logs), a, b);
    expect(diff.components.filter((c) => c.status !== 'same').map((c) => [c.name, c.status])).toEqual([['profile', 'changed']]);
    expect(diff.components.map((c) => c.name)).toEqual(['profile', 'skill:draft', 'card', 'harness', 'prompt']);
    expect(diff.fields).toEqual([]);
    const profileDiff = diff.components.find((c) => c.name === 'profile')!.diff!;
    expect(profileDiff.split('\n').filter((l) => /^[-+]/.test(l))).toEqual(['-Quality: good enough.', '+Quality: excellent.']);
    expect(renderRunDiff(diff)).toMatch(/changed\s+profile/);
  });

  it('names added and gone components', async () => {
    const logs = tmp();
    const vault = vaultWithProfile(PROFILE);
    const a = await dispatchRun(logs, vault, 'run-a');
    fs.writeFileSync(path.join(vault, 'AGENTS/writer/PROFILE.md'), PROFILE.replace('skills: [draft]', 'skills: [review]'));
    const b = await dispatchRun(logs, vault, 'run-b');
    const diff = await diffRuns(new ObjectStore(logs), a, b);
    expect(diff.components.filter((c) => c.status !== 'same').map((c) => [c.name, c.status])).toEqual([
      ['profile', 'changed'],
      ['skill:draft', 'gone'],
      ['skill:review', 'added'],
    ]);
  });

  it('never stores a private value: the env names the key instead', async () => {
    const logs = tmp();
    const vault = vaultWithProfile(PROFILE);
    const m = await dispatchRun(logs, vault, 'run-a');
    expect(m.env.API_KEY).toBe('<private:API_KEY>');
    expect(m.private_keys).toEqual(['API_KEY']);
    const everything = [fs.readFileSync(path.join(logs, 'manifests/run-a.json'), 'utf8')];
    const walk = (d: string) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : everything.push(fs.readFileSync(path.join(d, e.name), 'utf8'))));
    walk(path.join(logs, 'objects'));
    expect(everything.join('\n')).not.toContain('sk-very-secret-value');
  });
});

describe('text diff', () => {
  it('prints hunks with context', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const b = a.replace('line 10', 'line ten');
    expect(unifiedDiff(a, b)).toBe(['@@ -8,7 +8,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13', ''].join('\n'));
    expect(unifiedDiff(a, a)).toBe('');
  });
});

describe('cost', () => {
  it('reads tokens and usd from the last JSON line by JSON path', () => {
    const log = 'starting\n{"type":"progress"}\nsome text\n{"type":"result","usage":{"total_tokens":1234},"total_cost_usd":0.0123,"items":[{"n":5}]}\n[board supervisor] worker exited with code 0\n';
    expect(costFromText(log, { tokens: 'usage.total_tokens', usd: '$.total_cost_usd' })).toEqual({ tokens: 1234, usd: 0.0123 });
    expect(jsonPath({ items: [{ n: 5 }] }, 'items[0].n')).toBe(5);
    expect(costFromText('no json here\n', { tokens: 'a' })).toEqual({ error: 'no JSON line in the worker output' });
    expect(costFromText('{"a":"x"}\n', { tokens: 'a' }).error).toMatch(/tokens \(a\)/);
  });

  it('sums by profile, flow and day', () => {
    const m = (run: string, profile: string, flow: string | undefined, start: string, tokens?: number, usd?: number) =>
      ({ run, profile, flow, start, claim: start, model: 'x', harness: 'h', ...(tokens !== undefined ? { cost: { tokens, usd } } : {}) }) as unknown as RunManifest;
    const runs = [m('1', 'writer', 'f1', '2026-12-01T10:00:00Z', 100, 0.1), m('2', 'writer', undefined, '2026-12-02T10:00:00Z', 50, 0.05), m('3', 'editor', 'f1', '2026-12-02T11:00:00Z')];
    expect(sumCosts(runs, 'profile')).toEqual([
      { key: 'editor', runs: 1, costed: 0, tokens: 0, usd: 0 },
      { key: 'writer', runs: 2, costed: 2, tokens: 150, usd: 0.1 + 0.05 },
    ]);
    expect(sumCosts(runs, 'flow').map((r) => [r.key, r.tokens])).toEqual([
      ['(no flow)', 50],
      ['f1', 100],
    ]);
    expect(sumCosts(runs, 'day').map((r) => [r.key, r.runs])).toEqual([
      ['2026-12-01', 1],
      ['2026-12-02', 2],
    ]);
  });
});
