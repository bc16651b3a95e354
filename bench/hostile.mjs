/**
 * `node bench/run.mjs --hostile`: one round (`board tick`) over a board holding the worst file of
 * each kind (issue 12), next to the same board without them: wall time and peak RSS. Each timed
 * tick runs on a fresh copy of its board (a tick claims and moves cards), best of `repeats`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const MiB = 1024 * 1024;
const FIELDS = 'function: fn-0\nrequest: "Please write the topic 0 report"\ncreated: 2026-11-01T09:00:00.000Z\norigin: human\nattempts: 0\npaths: []';

/** The worst file of each kind the census meets, by what it costs or what it once broke. */
export function worstFiles() {
  const laughs = (levels) => {
    const lines = [FIELDS, 'l0: &l0 "lol"'];
    for (let i = 1; i <= levels; i += 1) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    return `---\n${lines.join('\n')}\n---\n`;
  };
  return {
    'laughs-10-levels.md': laughs(10),
    'laughs-wide.md': laughs(30),
    'just-under-1mib.md': `---\n${FIELDS}\nnotes: "${'x'.repeat(MiB - 400)}"\n---\n`,
    'just-under-1mib-simple.md': `---\n${FIELDS}\nnotes: ${'y'.repeat(MiB - 400)}\n---\n`,
    'over-1mib.md': `---\n${FIELDS}\nnotes: "${'x'.repeat(MiB + 10)}"\n---\n`,
    'no-fence-64mib.md': `---\n${FIELDS}\n${'z'.repeat(64 * MiB)}`,
    'deep-nesting.md': `---\n${FIELDS}\ndeep: ${'['.repeat(60)}${']'.repeat(60)}\n---\n`,
    'too-deep.md': `---\n${FIELDS}\ndeep: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n---\n`,
    'many-keys.md': `---\n${FIELDS}\n${Array.from({ length: 40_000 }, (_, i) => `k${i}: v`).join('\n')}\n---\n`,
    'control-bytes.md': `---\n${FIELDS.replace('origin: human', 'origin: "evil\\0\\e[31m"')}\n---\n`,
    'binary.md': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
    'bare-fence.md': `---\n${FIELDS}\n---`,
    'crlf.md': `---\n${FIELDS}\n---\nBody.\n`.replace(/\n/g, '\r\n'),
    'cr-only.md': `---\n${FIELDS}\n---\nBody.\n`.replace(/\n/g, '\r'),
    [`${'n'.repeat(252)}.md`]: `---\n${FIELDS}\n---\n`,
    'notes.txt': 'not a card',
    'UPPER.MD': `---\n${FIELDS}\n---\n`,
  };
}

/** Add the worst files (and a FIFO, a folder, a link) to a board's pending/. */
export function addWorstFiles(dir) {
  const pending = path.join(dir, 'vault/KANBAN/pending');
  for (const [name, text] of Object.entries(worstFiles())) fs.writeFileSync(path.join(pending, name), text);
  execFileSync('mkfifo', [path.join(pending, 'fifo.md')]);
  fs.mkdirSync(path.join(pending, 'folder.md'));
  fs.symlinkSync('/etc/passwd', path.join(pending, 'link.md'));
  const bytes = Object.values(worstFiles()).reduce((n, t) => n + Buffer.byteLength(t), 0);
  return { files: Object.keys(worstFiles()).length + 3, bytes };
}

/** `tick` timed on a fresh copy of `dir`, best of `repeats`. */
export function tickOnCopy(dir, repeats, timed) {
  let best;
  for (let i = 0; i < repeats; i += 1) {
    const copy = `${dir}.run`;
    fs.rmSync(copy, { recursive: true, force: true });
    execFileSync('cp', ['-a', dir, copy]);
    const r = timed(['tick', '--json', '--config', path.join(copy, 'board.yml'), '--now', '2026-12-02T10:00:00.000Z']);
    if (!best || r.wallMs < best.wallMs) best = r;
    fs.rmSync(copy, { recursive: true, force: true });
  }
  return best;
}
