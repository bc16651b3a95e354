import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { makeBoard, profile, snapshotTree } from '../helpers/vault.js';

/**
 * Generated hostile front matter (issue 12): YAML aliases and anchors (up to billion-laugh
 * fan-outs), deep nesting, long scalars, control characters (as YAML escapes and raw), missing
 * final newlines, every line ending (LF, CRLF, CR), and names of every length up to 255 bytes.
 * Two rounds over each board (the BUILT board, in a worker thread: see RoundRunner): neither throws nor outlives its time limit; every visible file in
 * pending/ is planned or declared; what is declared is left byte for byte; nothing claimed comes
 * back (no cycling); what the board wrote into a card holds no control character; and nothing
 * outside the vault changes.
 */

const NOW = '2026-12-02T10:00:00.000Z';
const WRITER = profile('writer', 'function: write\nhandles: [draft]\nskills: [write]');
/** Per round: far above what any case needs, far below a stall (a 10-level laugh ran minutes). */
const ROUND_LIMIT_MS = 10_000;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const BASE = ['function: write', 'created: 2026-12-01T09:00:00.000Z', 'attempts: 0', 'paths: []'];

/** One hostile front-matter line (or a few): each generator says what it exercises. */
const hostileLines: fc.Arbitrary<string[]> = fc.oneof(
  // Aliases: `levels` levels, each listing the previous `fanout` times (10 x 9 = a billion laughs).
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.boolean()).map(([levels, fanout, flow]) => {
    const lines = ['l0: &l0 "lol"'];
    for (let i = 1; i <= levels; i += 1) {
      const items = Array.from({ length: fanout }, () => `*l${i - 1}`);
      lines.push(flow ? `l${i}: &l${i} [${items.join(', ')}]` : `l${i}: &l${i}\n${items.map((x) => `  - ${x}`).join('\n')}`);
    }
    return lines;
  }),
  // An alias used as a mapping value and a merge-looking key (JSON_SCHEMA has no merge).
  fc.constant(['base: &b {a: 1, b: [x, y]}', 'other: *b', '<<: *b']),
  // Deep nesting, flow and block.
  fc.integer({ min: 1, max: 300 }).map((d) => [`deep: ${'['.repeat(d)}${']'.repeat(d)}`]),
  fc.integer({ min: 1, max: 120 }).map((d) => ['nest:', ...Array.from({ length: d }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`)]),
  // Long scalars, around the 1 MiB limit too.
  fc.constantFrom(10, 5_000, 300_000, 1_048_000, 1_100_000).map((n) => [`long: "${'x'.repeat(n)}"`]),
  // Control characters as YAML escapes, in fields the board copies into the Record and `blocked`.
  fc.constantFrom('\\0', '\\e', '\\x9b', '\\a', '\\r', '\\x7f', '\\u202e').map((esc) => [`origin: "evil${esc}[31m"`]),
  fc.constantFrom('\\0', '\\e', '\\x1b]0;t\\x07').map((esc) => [`inputs:\n  src: "notes/a${esc}.md"`]),
  // Raw control bytes (a binary card, which must be declared).
  fc.constantFrom('\u0000', '\u001b', '\u0007', '\u007f').map((c) => [`note: a${c}b`]),
);

const request = fc.constantFrom('request: draft', 'request: "draft \\e[2J"', 'request: draft about kanban');
const origin = fc.constantFrom('origin: human', 'origin: "hu\\0man"');

const frontMatter = fc.tuple(fc.array(hostileLines, { maxLength: 2 }), request, origin).map(([extra, req, orig]) => {
  const lines = [...BASE, req, ...extra.flat()];
  if (!extra.flat().some((l) => l.startsWith('origin:'))) lines.push(orig);
  return lines.join('\n');
});

/** Card text: the YAML, a body or none, with or without a final newline, in one line ending. */
const cardText = fc.record({
  yaml: frontMatter,
  body: fc.constantFrom('', '\nBody.\n', '\n## Record\n- 2026-12-01 09:00\n    - human: created.\n', '\nno final newline'),
  finalNewline: fc.boolean(),
  eol: fc.constantFrom('\n', '\r\n', '\r'),
}).map(({ yaml, body, finalNewline, eol }) => {
  let text = `---\n${yaml}\n---${body === '' && !finalNewline ? '' : '\n'}${body.replace(/^\n/, '')}`;
  if (!finalNewline) text = text.replace(/\n$/, '');
  return text.replace(/\n/g, eol);
});

const NAME_UNITS = ['a', 'Z', '0', '-', ' ', 'é', '😀', '\u001b', '\n', '.', '#'];
/** A file name of exactly `bytes` UTF-8 bytes (1..255) with a card's extension, or another. */
const fileName = fc.tuple(fc.integer({ min: 4, max: 255 }), fc.array(fc.constantFrom(...NAME_UNITS), { minLength: 1, maxLength: 8 }), fc.constantFrom('.md', '.md', '.MD', '.txt')).map(([bytes, units, ext]) => {
  let stem = '';
  let i = 0;
  const room = bytes - Buffer.byteLength(ext);
  while (Buffer.byteLength(stem) < room) {
    const unit = units[i % units.length]!;
    stem += Buffer.byteLength(stem + unit) <= room ? unit : 'x';
    i += 1;
  }
  return `${stem}${ext}`;
});

/**
 * Rounds run in a worker thread (round-worker.mjs, over dist/): a round stuck in synchronous code
 * (a billion laughs being expanded) is stopped by terminating the worker, which a timer in this
 * thread could not do. One worker serves every round; a new one replaces a terminated one.
 */
class RoundRunner {
  private worker: Worker | undefined;
  private next = 0;

  async round(root: string): Promise<Record<string, unknown>> {
    this.worker ??= new Worker(new URL('./round-worker.mjs', import.meta.url));
    const worker = this.worker;
    const id = (this.next += 1);
    let timer: NodeJS.Timeout | undefined;
    let onMessage: ((m: { id: number; code?: number; out?: string; error?: string }) => void) | undefined;
    try {
      const reply = await new Promise<{ code?: number; out?: string; error?: string }>((resolve, reject) => {
        timer = setTimeout(() => {
          this.worker = undefined;
          void worker.terminate();
          reject(new Error(`a round took over ${ROUND_LIMIT_MS} ms (stopped)`));
        }, ROUND_LIMIT_MS);
        onMessage = (m) => m.id === id && resolve(m);
        worker.on('message', onMessage);
        worker.postMessage({ id, root, now: NOW });
      });
      if (reply.error !== undefined) throw new Error(`the round threw: ${reply.error}`);
      expect(reply.code).toBe(0);
      return JSON.parse(reply.out!) as Record<string, unknown>;
    } finally {
      clearTimeout(timer);
      if (onMessage) worker.off('message', onMessage);
    }
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
  }
}

describe('generated hostile files never crash, stall, cycle or escape a round', () => {
  it('two rounds over each generated board', async () => {
    // What the generated boards came to, so a generator that stopped producing a case shows.
    const seen = new Map<string, number>();
    const see = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
    const runner = new RoundRunner();
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.record({ name: fileName, text: cardText }), { minLength: 1, maxLength: 4, selector: (c) => c.name.toLowerCase() }), async (cards) => {
        const root = makeBoard({ 'AGENTS/writer/PROFILE.md': WRITER }, { 'board.yml': 'vault: vault\ndefault_harness: fake\nlogs: logs\nmax_dispatches_per_round: 20\n', 'outside/keep.md': 'outside' });
        const vault = path.join(root, 'vault');
        const pending = path.join(vault, 'KANBAN/pending');
        for (const c of cards) fs.writeFileSync(path.join(pending, c.name), c.text);
        const outsideBefore = snapshotTree(path.join(root, 'outside'));
        const configBefore = fs.readFileSync(path.join(root, 'board.yml'), 'utf8');

        const first = (await runner.round(root)) as { invalid: { file: string; reason: string }[]; dispatch: { card: string }[]; waiting: { card: string }[]; blocked: { card: string }[]; transitions: { kind: string; card: string }[] };
        const declared = new Map(first.invalid.map((p) => [p.file, p.reason]));
        const planned = new Set([...first.dispatch, ...first.waiting, ...first.blocked].map((x) => x.card));
        const claimed = new Set(first.transitions.filter((t) => t.kind === 'claimed').map((t) => t.card));
        for (const reason of declared.values()) see(/billion laughs|over 1 MiB|nested deeper|name too long|not a card|NUL|no front matter|invalid YAML/.exec(reason)?.[0] ?? 'other declared');
        for (const _ of claimed) see('claimed');
        for (const _ of first.blocked) see('blocked');
        for (const c of cards) {
          const what = `${JSON.stringify(c.name)} (${Buffer.byteLength(c.name)} bytes)`;
          if (c.name.startsWith('.')) {
            // Hidden names are never cards and never declared: left exactly as they are.
            expect(declared.has(c.name) || planned.has(c.name), what).toBe(false);
            expect(fs.readFileSync(path.join(pending, c.name), 'utf8'), what).toBe(c.text);
            continue;
          }
          expect(declared.has(c.name) || planned.has(c.name), `${what} is neither planned nor declared`).toBe(true);
          if (declared.has(c.name)) {
            expect(declared.get(c.name)).toMatch(/\S/);
            expect(fs.readFileSync(path.join(pending, c.name), 'utf8'), `${what} was rewritten`).toBe(c.text);
          }
          if (claimed.has(c.name)) {
            const after = fs.readFileSync(path.join(vault, 'KANBAN/in-progress', c.name), 'utf8');
            const doc = parseFrontMatter(after);
            expect(doc.data.claimed).toMatch(/^2026-12-02T10:00:00\.0\d\dZ$/);
            // Whatever the card held, the lines the board added carry no control character.
            const had = new Set(c.text.split('\n'));
            const added = after.split('\n').filter((line) => !had.has(line));
            expect(added.join('\n').replace(/\r$/gm, ''), what).not.toMatch(CONTROL);
            expect(doc.body).toMatch(/## Record/);
          }
          if (planned.has(c.name) && !claimed.has(c.name) && fs.existsSync(path.join(pending, c.name))) {
            // Blocked or waiting: still a readable card, whatever it was stamped with.
            expect(() => parseFrontMatter(fs.readFileSync(path.join(pending, c.name), 'utf8')), what).not.toThrow();
          }
        }

        const second = (await runner.round(root)) as { transitions: { kind: string; card: string }[] };
        // Nothing claimed comes back to pending/, nothing is claimed twice.
        for (const name of claimed) expect(fs.existsSync(path.join(vault, 'KANBAN/in-progress', name)), `${name} left in-progress/`).toBe(true);
        expect(second.transitions.filter((t) => t.kind === 'claimed' && claimed.has(t.card))).toEqual([]);
        expect(snapshotTree(path.join(root, 'outside'))).toEqual(outsideBefore);
        expect(fs.readFileSync(path.join(root, 'board.yml'), 'utf8')).toBe(configBefore);
        expect(fs.readdirSync(root).sort()).toEqual(['board.yml', 'harnesses', 'logs', 'models.yml', 'outside', 'vault']);
        fs.rmSync(root, { recursive: true, force: true });
      }),
      // No shrinking: a stalled case costs the whole time limit per attempt; the first one is shown.
      { numRuns: Number(process.env.FC_RUNS ?? 60), seed: 20261203, endOnFailure: true },
    ).finally(() => runner.close());
    for (const what of ['claimed', 'blocked', 'billion laughs', 'name too long', 'not a card', 'no front matter']) expect(seen.get(what) ?? 0, `${what} in ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
  }, 600_000);
});
