import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tickCommand } from '../../src/commands/tick.js';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { silentLogger } from '../../src/log.js';
import { executePlan, planFromVault } from '../../src/round/run-round.js';
import { FakeSpawner, card, makeBoard, profile, roundContext } from '../helpers/vault.js';

/**
 * Bad input. Card and profile files are generated from valid ones and then mutated: invalid YAML,
 * wrong types, huge values, binary and NUL bytes, a BOM, CRLF, duplicate keys, missing fences,
 * truncation, symlinks. Whatever the bytes, the round never throws; every file it could not read
 * is declared with a reason; no file it could not read is rewritten; a file it did rewrite (a
 * claim) still parses, keeps every other field, its body, its BOM and its line endings.
 */

const NOW = '2026-12-02T10:00:00.000Z';
const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');

const VALID_CARD_FIELDS = [
  'function: write',
  'request: "Write a draft about kanban"',
  'created: 2026-12-01T09:00:00.000Z',
  'origin: human',
  'attempts: 0',
  'paths: []',
];
const VALID_PROFILE_FIELDS = ['name: fuzzed', 'version: 1', 'description: A fuzzed profile.', 'function: write', 'handles: [draft about kanban]', 'skills: [write]'];

type Mutation = (lines: string[], body: string) => string | Buffer;

const join = (lines: string[], body: string, eol = '\n') => `---${eol}${lines.join(eol)}${eol}---${eol}${body.split('\n').join(eol)}`;

const wrongValue = fc.constantFrom('[1, 2]', '{a: 1}', '42', 'true', 'null', '"', "'unterminated", '- x', '&anchor', '*alias', '!!binary aGk=', '>', '|', '');

/** Mutations, each keeping a reference to what it did (for the failure message). */
const mutation: fc.Arbitrary<{ name: string; apply: Mutation }> = fc.oneof(
  fc.constant({ name: 'none', apply: ((l, b) => join(l, b)) as Mutation }),
  fc.constant({ name: 'bom', apply: ((l, b) => `\uFEFF${join(l, b)}`) as Mutation }),
  fc.constant({ name: 'crlf', apply: ((l, b) => join(l, b, '\r\n')) as Mutation }),
  fc.constant({ name: 'bom+crlf', apply: ((l, b) => `\uFEFF${join(l, b, '\r\n')}`) as Mutation }),
  fc.constant({ name: 'no opening fence', apply: ((l, b) => `${l.join('\n')}\n---\n${b}`) as Mutation }),
  fc.constant({ name: 'no closing fence', apply: ((l, b) => `---\n${l.join('\n')}\n${b}`) as Mutation }),
  fc.constant({ name: 'empty file', apply: (() => '') as Mutation }),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ name: `duplicate key ${i}`, apply: ((l, b) => join([...l, l[i % l.length]!], b)) as Mutation })),
  fc.tuple(fc.integer({ min: 0, max: 5 }), wrongValue).map(([i, v]) => ({
    name: `wrong value ${i}=${v}`,
    apply: ((l, b) => join(l.map((line, j) => (j === i % l.length ? `${line.slice(0, line.indexOf(':'))}: ${v}` : line)), b)) as Mutation,
  })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ name: `missing key ${i}`, apply: ((l, b) => join(l.filter((_, j) => j !== i % l.length), b)) as Mutation })),
  fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 200_000, max: 1_100_000 })).map(([i, n]) => ({
    name: `huge value ${i} (${n})`,
    apply: ((l, b) => join(l.map((line, j) => (j === i % l.length ? `${line.slice(0, line.indexOf(':'))}: "${'x'.repeat(n)}"` : line)), b)) as Mutation,
  })),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => ({ name: 'binary', apply: (() => Buffer.from(bytes)) as Mutation })),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat()).map(([bytes, at]) => ({
    name: 'binary spliced',
    apply: ((l, b) => {
      const text = Buffer.from(join(l, b));
      const i = at % (text.length + 1);
      return Buffer.concat([text.subarray(0, i), Buffer.from(bytes), text.subarray(i)]);
    }) as Mutation,
  })),
  fc.nat().map((at) => ({ name: `truncated at ${at}`, apply: ((l, b) => { const t = join(l, b); return t.slice(0, at % (t.length + 1)); }) as Mutation })),
  fc.string({ maxLength: 60 }).map((junk) => ({ name: `junk line ${JSON.stringify(junk)}`, apply: ((l, b) => join([...l.slice(0, 2), junk, ...l.slice(2)], b)) as Mutation })),
  fc.constant({ name: 'tab indentation', apply: ((l, b) => join([...l, 'inputs:', '\tsource: x.md'], b)) as Mutation }),
  fc.constant({ name: 'NUL in body', apply: ((l, b) => join(l, `${b}\0tail`)) as Mutation }),
);

const body = fc.oneof(fc.constant('\nSome body.\n'), fc.constant('\n## Record\n- 2026-12-01 09:00\n    - human: created.\n'), fc.string({ maxLength: 80 }));

const fuzzedFile = fc.record({ mutation, body, where: fc.constantFrom('pending', 'pending', 'in-progress', 'profile') });

function hasCrlfFrontMatter(text: string): boolean {
  return /^\uFEFF?---\r\n/.test(text);
}

describe('bad input never crashes a round', () => {
  it('fuzzed cards and profiles: declared with a reason, never rewritten unless round-trippable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzedFile, { minLength: 1, maxLength: 6 }), fc.boolean(), async (files, withSymlinks) => {
        const vaultFiles: Record<string, string> = { 'AGENTS/writer/PROFILE.md': WRITER };
        const root = makeBoard(vaultFiles, { 'board.yml': 'vault: vault\ndefault_harness: fake\nlogs: logs\nmax_dispatches_per_round: 20\n' });
        const vault = path.join(root, 'vault');
        const written = new Map<string, { bytes: Buffer; mutation: string }>();
        files.forEach((f, i) => {
          const lines = f.where === 'profile' ? VALID_PROFILE_FIELDS.map((l) => (l === 'name: fuzzed' ? `name: fuzzed-${i}` : l)) : VALID_CARD_FIELDS;
          const out = f.mutation.apply(lines, f.body);
          const bytes = typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
          const rel = f.where === 'profile' ? `AGENTS/fuzz-${i}/PROFILE.md` : `KANBAN/${f.where}/fuzz-${i}.md`;
          fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
          fs.writeFileSync(path.join(vault, rel), bytes);
          written.set(rel, { bytes, mutation: f.mutation.name });
        });
        if (withSymlinks) {
          fs.writeFileSync(path.join(root, 'outside.md'), card(VALID_CARD_FIELDS.join('\n')));
          fs.symlinkSync(path.join(root, 'outside.md'), path.join(vault, 'KANBAN/pending/link-out.md'));
          fs.symlinkSync('../in-progress/nowhere.md', path.join(vault, 'KANBAN/pending/dangling.md'));
          fs.mkdirSync(path.join(vault, 'AGENTS/linked'));
          fs.symlinkSync(path.join(root, 'outside.md'), path.join(vault, 'AGENTS/linked/PROFILE.md'));
        }

        const out: string[] = [];
        const spawner = new FakeSpawner();
        const code = await tickCommand({ now: NOW, json: true }, { cwd: root, env: {}, stdout: (t) => void out.push(t), logger: silentLogger(), clock: () => new Date(NOW) }, spawner);
        expect(code).toBe(0);
        const json = JSON.parse(out.join('')) as Record<string, { card?: string; file?: string; reason?: string }[]> & { transitions: { kind: string; card: string }[] };

        const declared = new Map<string, string>();
        for (const p of [...json.invalid!, ...json.problems!]) {
          expect(p.reason, JSON.stringify(p)).toMatch(/\S/);
          declared.set(p.file!, p.reason!);
        }
        const handled = new Set([...json.dispatch!, ...json.waiting!, ...json.blocked!, ...json.zombies!].map((x) => x.card!));
        const profiles = new Set((json.profiles as unknown as { path: string }[]).map((p) => p.path));

        for (const [rel, { bytes, mutation: how }] of written) {
          const name = path.basename(rel);
          const shown = rel.startsWith('AGENTS/') ? rel : name;
          const isDeclared = declared.has(shown);
          const isHandled = rel.startsWith('AGENTS/') ? profiles.has(rel) : handled.has(name);
          // Every file is either understood (planned) or declared unreadable, with a reason.
          expect(isDeclared || isHandled, `${rel} (${how}) is neither planned nor declared`).toBe(true);
          if (isDeclared) {
            // A file the board could not read is never rewritten, moved or removed.
            expect(fs.readFileSync(path.join(vault, rel)).equals(bytes), `${rel} (${how}) was rewritten`).toBe(true);
            continue;
          }
          const claim = json.transitions.find((t) => t.kind === 'claimed' && t.card === name) as { profile?: string } | undefined;
          if (rel.startsWith('KANBAN/pending/') && claim) {
            // Claimed: moved and stamped. It parses, keeps every field it had, its body, BOM and EOLs.
            const before = bytes.toString('utf8');
            const after = fs.readFileSync(path.join(vault, 'KANBAN/in-progress', name), 'utf8');
            const b = parseFrontMatter(before);
            const a = parseFrontMatter(after);
            expect(a.data).toEqual({ ...b.data, agent: claim.profile, claimed: expect.stringMatching(/^2026-12-02T10:00:00\.\d{3}Z$/) as unknown as string, model: 'fake-medium' });
            expect(after.startsWith('\uFEFF')).toBe(before.startsWith('\uFEFF'));
            expect(hasCrlfFrontMatter(after)).toBe(hasCrlfFrontMatter(before));
            expect(a.body.startsWith(b.body.trimEnd().replace(/\r?\n$/, '')) || a.body.includes(b.body.trim())).toBe(true);
          }
        }
        if (withSymlinks) {
          expect(declared.get('link-out.md')).toMatch(/symbolic link/);
          expect(declared.get('dangling.md')).toMatch(/symbolic link/);
          expect(declared.get('AGENTS/linked/PROFILE.md')).toMatch(/symbolic link/);
          expect(fs.lstatSync(path.join(vault, 'KANBAN/pending/link-out.md')).isSymbolicLink()).toBe(true);
        }
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 60, seed: 20261202 },
    );
  }, 120_000);

  it('a card that vanishes between the census and its claim is reported, not a crash', async () => {
    const files: Record<string, string> = { 'AGENTS/writer/PROFILE.md': WRITER };
    for (const n of ['a', 'b', 'c']) files[`KANBAN/pending/${n}.md`] = card(VALID_CARD_FIELDS.join('\n'));
    const root = makeBoard(files);
    const ctx = await roundContext(root, new Date(NOW));
    const plan = await planFromVault(ctx);
    expect(plan.dispatch.map((d) => d.card)).toEqual(['a.md', 'b.md', 'c.md']);
    fs.rmSync(path.join(root, 'vault/KANBAN/pending/b.md'));
    fs.renameSync(path.join(root, 'vault/KANBAN/pending/c.md'), path.join(root, 'vault/KANBAN/done/c.md'));
    const transitions = await executePlan(ctx, plan);
    expect(transitions.filter((t) => t.kind === 'claimed').map((t) => t.card)).toEqual(['a.md']);
    expect(transitions.filter((t) => t.kind === 'failed').map((t) => [t.card, t.detail])).toEqual([
      ['b.md', 'not claimed: the card left pending/ before it could be claimed'],
      ['c.md', 'not claimed: the card left pending/ before it could be claimed'],
    ]);
    expect(fs.existsSync(path.join(root, 'vault/KANBAN/in-progress/c.md'))).toBe(false);
  });
});
