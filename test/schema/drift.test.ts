import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/format/frontmatter.js';
import { renderJsonSchemas } from '../../src/schema/json-schema.js';
import { profileSchema } from '../../src/schema/profile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = path.join(ROOT, 'profiles-schema');

describe('profiles-schema/', () => {
  it('matches the zod source (run `npm run build && npm run schemas` after changing a schema)', async () => {
    const expected = renderJsonSchemas();
    const committed = (await fs.readdir(DIR)).filter((f) => f.endsWith('.schema.json')).sort();
    expect(committed).toEqual(Object.keys(expected).sort());
    for (const [file, text] of Object.entries(expected)) {
      expect(await fs.readFile(path.join(DIR, file), 'utf8'), `${file} drifted from the zod schema`).toBe(text);
    }
  });

  it('describes rank as a discriminated union: a worker or a director, never both', () => {
    const profile = JSON.parse(renderJsonSchemas()['profile.schema.json']!) as { oneOf: { title: string }[] };
    expect(profile.oneOf.map((o) => o.title)).toEqual(['worker', 'director']);
  });

  it("example profiles point editors at the schema, and the $schema comment line is harmless to the parser", async () => {
    const agents = path.join(ROOT, 'examples/vault/AGENTS');
    for (const name of await fs.readdir(agents)) {
      const file = path.join(agents, name, 'PROFILE.md');
      const text = await fs.readFile(file, 'utf8');
      const line = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
      expect(line, `${name} has no $schema line`).not.toBeNull();
      await expect(fs.access(path.resolve(path.dirname(file), line![1]!))).resolves.toBeUndefined();
      const data = parseFrontMatter(text).data;
      expect(Object.keys(data)).not.toContain('$schema');
      expect(profileSchema.safeParse(data).success).toBe(true);
    }
  });
});
