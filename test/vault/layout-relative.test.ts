import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultLayout } from '../../src/vault/layout.js';

/** What `relative` gave before its fast path: the definition the slice must keep. */
const byPathRelative = (root: string, absolute: string) => path.relative(path.resolve(root), absolute).split(path.sep).join('/');

const segment = fc.constantFrom('a', 'AGENTS', 'PROFILE.md', '.', '..', '', '.hidden', '..x', '...', 'x.', 'KANBAN', 'é');
const tail = fc.array(segment, { maxLength: 5 }).map((parts) => parts.join('/'));
const root = fc.constantFrom('/v', '/work/vault', '/work/vault/', '/', '/a/b/../c', '/tmp/x.y');

describe('VaultLayout.relative', () => {
  it('gives what path.relative gives, for normalized and unnormalized paths alike', () => {
    fc.assert(
      fc.property(root, tail, fc.boolean(), fc.boolean(), (r, t, trailing, elsewhere) => {
        const layout = new VaultLayout(r);
        const absolute = `${elsewhere ? '/elsewhere' : layout.root}/${t}${trailing ? '/' : ''}`;
        expect(layout.relative(absolute)).toBe(byPathRelative(r, absolute));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps the cases a slice would get wrong on the careful path', () => {
    const layout = new VaultLayout('/work/vault');
    expect(layout.relative('/work/vault/AGENTS/writer/PROFILE.md')).toBe('AGENTS/writer/PROFILE.md');
    expect(layout.relative('/work/vault/AGENTS/../KANBAN/pending/a.md')).toBe('KANBAN/pending/a.md');
    expect(layout.relative('/work/vault//AGENTS/./x')).toBe('AGENTS/x');
    expect(layout.relative('/work/vaults/a')).toBe('../vaults/a');
    expect(layout.relative('/work/vault/')).toBe('');
    expect(layout.relative('/work/vault/.hidden/..x')).toBe('.hidden/..x');
  });
});
