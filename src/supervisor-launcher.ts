/**
 * The per-run supervisor every claim starts (`dist/supervisor.cjs`; `dist/supervisor.js` is the
 * same as an ES module): runs its bundle (`dist/supervisor.bundle.cjs`, made by
 * scripts/bundle.mjs from src/supervisor.ts) from V8's code cache (see launch-bundle.ts): about
 * 40 ms less of every run's start.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle } from './launch-bundle.js';

runBundle(path.dirname(fileURLToPath(import.meta.url)), 'supervisor.bundle.cjs');
