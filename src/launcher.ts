#!/usr/bin/env node
/**
 * The `board` executable: runs the CLI bundle (`dist/cli.bundle.cjs`, made by scripts/bundle.mjs)
 * from V8's code cache (see launch-bundle.ts). Built twice: `dist/cli.cjs` (package.json's bin,
 * what the board itself starts) and `dist/cli.js`, the same as an ES module.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle } from './launch-bundle.js';

runBundle(path.dirname(fileURLToPath(import.meta.url)), 'cli.bundle.cjs');
