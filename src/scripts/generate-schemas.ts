#!/usr/bin/env node
/**
 * `npm run schemas`: write `profiles-schema/*.schema.json` from the zod schemas. CI's drift test
 * (test/schema/drift.test.ts) fails when the committed files differ from what this writes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderJsonSchemas } from '../schema/json-schema.js';

const outDir = process.argv[2] ?? fileURLToPath(new URL('../../profiles-schema/', import.meta.url));
await fs.mkdir(outDir, { recursive: true });
for (const [file, text] of Object.entries(renderJsonSchemas())) {
  await fs.writeFile(path.join(outDir, file), text, 'utf8');
  process.stdout.write(`wrote ${path.join(outDir, file)}\n`);
}
