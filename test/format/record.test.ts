import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendRecord, recordStamp, renderRecordEntry } from '../../src/format/record.js';

// TZ=UTC: local time is UTC.
const NOW = new Date(Date.UTC(2026, 7, 20, 13, 56, 42));
const FM = '---\nfunction: write\n---\n';

describe('recordStamp', () => {
  it.each([
    [new Date(Date.UTC(2026, 7, 20, 13, 56, 59, 999)), '2026-08-20 13:56'],
    [new Date(Date.UTC(2026, 0, 2, 3, 4)), '2026-01-02 03:04'],
    [new Date(Date.UTC(2028, 1, 29, 23, 59)), '2028-02-29 23:59'],
    [new Date(Date.UTC(2027, 0, 1, 0, 0)), '2027-01-01 00:00'],
  ])('%s -> %s', (date, expected) => {
    expect(recordStamp(date)).toBe(expected);
  });
});

describe('renderRecordEntry', () => {
  it.each<[string, string, string[], string, string]>([
    ['one milestone', 'board', ['claimed for writer (harness local, model m).'], '\n', '- 2026-08-20 13:56\n    - board: claimed for writer (harness local, model m).\n'],
    ['several milestones: the actor names the first', 'writer', ['admission passed.', 'Draft written.', 'Card closed.'], '\n', '- 2026-08-20 13:56\n    - writer: admission passed.\n    - Draft written.\n    - Card closed.\n'],
    ['CRLF', 'board', ['a', 'b'], '\r\n', '- 2026-08-20 13:56\r\n    - board: a\r\n    - b\r\n'],
    ['milestones are one line each', 'board', ['line one\nline two', '  spaced \r\n\r\n  out  '], '\n', '- 2026-08-20 13:56\n    - board: line one line two\n    - spaced out\n'],
    ['no milestones: only the stamp', 'board', [], '\n', '- 2026-08-20 13:56\n'],
  ])('%s', (_label, actor, milestones, eol, expected) => {
    expect(renderRecordEntry(NOW, actor, milestones, eol)).toBe(expected);
  });
});

const ENTRY = '- 2026-08-20 13:56\n    - board: claimed.\n';

describe('appendRecord', () => {
  it.each<[string, string, string]>([
    // [label, body before, body after]
    ['creates the section in an empty body', '', `## Record\n\n${ENTRY}`],
    ['creates the section after text, with a blank line', 'Some text.\n', `Some text.\n\n## Record\n\n${ENTRY}`],
    ['creates the section after text without a final newline', 'Some text.', `Some text.\n\n## Record\n\n${ENTRY}`],
    ['creates the section after a blank line without doubling it', 'Some text.\n\n', `Some text.\n\n## Record\n\n${ENTRY}`],
    ['creates the section at the end even when other sections exist', '## Notes\n\nn\n', `## Notes\n\nn\n\n## Record\n\n${ENTRY}`],
    ['"### Record" is not the section', '### Record\n', `### Record\n\n## Record\n\n${ENTRY}`],
    ['"## Records" is not the section', '## Records\n', `## Records\n\n## Record\n\n${ENTRY}`],
    ['an empty section gets a blank line after the heading', '## Record\n', `## Record\n\n${ENTRY}`],
    ['an empty section without final newline', '## Record', `## Record\n\n${ENTRY}`],
    ['an empty section with a blank line (kept after the entry)', '## Record\n\n', `## Record\n\n${ENTRY}\n`],
    ['heading with trailing spaces kept', '## Record  \n', `## Record  \n\n${ENTRY}`],
    ['an empty section followed by another section', '## Record\n\n## Notes\nn\n', `## Record\n\n${ENTRY}\n## Notes\nn\n`],
    [
      'appends after the last entry',
      'Intro.\n\n## Record\n\n- 2026-08-19 10:00\n    - human: created.\n',
      `Intro.\n\n## Record\n\n- 2026-08-19 10:00\n    - human: created.\n${ENTRY}`,
    ],
    ['appends after a last line without newline', '## Record\n\n- 2026-08-19 10:00\n    - human: created.', `## Record\n\n- 2026-08-19 10:00\n    - human: created.\n${ENTRY}`],
    ['keeps trailing spaces of the last line', '## Record\n\n- 2026-08-19 10:00\n    - human: created.   \n', `## Record\n\n- 2026-08-19 10:00\n    - human: created.   \n${ENTRY}`],
    ['keeps trailing blank lines after the entry', '## Record\n\n- x\n\n\n', `## Record\n\n- x\n${ENTRY}\n\n`],
    [
      'appends at the end of the section when another "## " section follows',
      '## Record\n\n- 2026-08-19 10:00\n    - human: created.\n\n## Notes\n\nkeep me\n',
      `## Record\n\n- 2026-08-19 10:00\n    - human: created.\n${ENTRY}\n## Notes\n\nkeep me\n`,
    ],
    ['a following "# " heading also ends the section', '## Record\n- x\n# Appendix\n', `## Record\n- x\n${ENTRY}# Appendix\n`],
    ['"### " subheadings stay inside the section', '## Record\n### Old\n- x\n\n## Notes\n', `## Record\n### Old\n- x\n${ENTRY}\n## Notes\n`],
    ['"#hashtag" lines are not headings', '## Record\n- x\n#tag\n', `## Record\n- x\n#tag\n${ENTRY}`],
    ['the first "## Record" is the one', '## Record\n- a\n## Notes\n## Record\n- b\n', `## Record\n- a\n${ENTRY}## Notes\n## Record\n- b\n`],
  ])('%s', (_label, body, expected) => {
    expect(appendRecord(FM + body, NOW, 'board', ['claimed.'])).toBe(FM + expected);
  });

  it('keeps CRLF, a BOM and the front matter byte for byte', () => {
    const head = '\uFEFF---\r\nfunction: write  # c\r\n---\r\n';
    expect(appendRecord(`${head}Text.\r\n`, NOW, 'board', ['a', 'b'])).toBe(`${head}Text.\r\n\r\n## Record\r\n\r\n- 2026-08-20 13:56\r\n    - board: a\r\n    - b\r\n`);
    expect(appendRecord(`${head}## Record\r\n`, NOW, 'board', ['a'])).toBe(`${head}## Record\r\n\r\n- 2026-08-20 13:56\r\n    - board: a\r\n`);
    expect(appendRecord(`${head}## Record\r\n\r\n- x\r\n\r\n## Notes\r\n`, NOW, 'board', ['a'])).toBe(
      `${head}## Record\r\n\r\n- x\r\n- 2026-08-20 13:56\r\n    - board: a\r\n\r\n## Notes\r\n`,
    );
  });

  it('appending twice puts the entries in order', () => {
    const later = new Date(NOW.getTime() + 60_000);
    const once = appendRecord(`${FM}## Record\n\n## Notes\n`, NOW, 'board', ['one']);
    expect(appendRecord(once, later, 'writer', ['two'])).toBe(
      `${FM}## Record\n\n- 2026-08-20 13:56\n    - board: one\n- 2026-08-20 13:57\n    - writer: two\n\n## Notes\n`,
    );
  });

  it('refuses text without front matter', () => {
    expect(() => appendRecord('no front matter', NOW, 'board', ['x'])).toThrow('no front matter');
  });

  it('property: everything before the insertion point is kept, the rest follows the entry, and the front matter is untouched', () => {
    const line = fc.oneof(
      fc.constantFrom('', '## Record', '## Notes', '# Title', '### Sub', '- 2026-01-01 00:00', '    - a: b', 'text', '  ', '#tag', '## Record  '),
      fc.string({ maxLength: 12 }).filter((s) => !/[\r\n]/.test(s)),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), fc.boolean(), fc.string({ maxLength: 20 }), (lines, crlf, finalNewline, milestone) => {
        const eol = crlf ? '\r\n' : '\n';
        const fm = `---${eol}a: 1${eol}---${eol}`;
        const body = lines.join(eol) + (finalNewline && lines.length > 0 ? eol : '');
        const out = appendRecord(fm + body, NOW, 'board', [milestone]);
        const entry = `- 2026-08-20 13:56${eol}    - board: ${milestone.replace(/\s*[\r\n]+\s*/g, ' ').trim()}${eol}`;
        expect(out.startsWith(fm)).toBe(true);
        const outBody = out.slice(fm.length);
        const at = outBody.indexOf(entry);
        expect(at).toBeGreaterThanOrEqual(0);
        // Removing the entry (and what the board adds around it: a line break, a blank line, a
        // heading) gives back the original body, in order.
        const before = outBody.slice(0, at);
        const after = outBody.slice(at + entry.length);
        const added = [``, eol, eol + eol];
        expect(before.endsWith('\n')).toBe(true);
        if (/^##[ \t]+Record[ \t]*\r?$/m.test(body)) {
          // body = P + S; output = P + (nothing | a line break | a blank line) + entry + S.
          expect(body.endsWith(after)).toBe(true);
          const p = body.slice(0, body.length - after.length);
          expect(before.startsWith(p)).toBe(true);
          expect(added).toContain(before.slice(p.length));
          expect(p.length).toBeGreaterThan(body.search(/^##[ \t]+Record/m));
        } else {
          expect(after).toBe('');
          expect(before.startsWith(body)).toBe(true);
          expect(added.map((x) => `${x}## Record${eol}${eol}`)).toContain(before.slice(body.length));
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});
