#!/usr/bin/env node
/**
 * `dist/cli.js`, the `board` executable: runs the CLI bundle (`dist/cli.bundle.cjs`, made by
 * scripts/bundle.mjs) from V8's code cache (see launch-bundle.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle } from './launch-bundle.js';

runBundle(path.dirname(fileURLToPath(import.meta.url)), 'cli.bundle.cjs');
