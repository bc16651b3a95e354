import { fileURLToPath } from 'node:url';

/**
 * The board's own scripts that it starts as processes (the CLI for workers' verbs, replays and
 * service units; the per-run supervisor). Resolved from this module's URL, which is `dist/` both
 * in the module tree tsc emits and inside the bundles their launchers run (scripts/bundle.mjs),
 * so one relative path is right in either. The CommonJS launchers: a process started on one
 * skips Node's ES module loader (~15 ms of every start).
 */
export const BOARD_CLI = fileURLToPath(new URL('./cli.cjs', import.meta.url));
export const SUPERVISOR_SCRIPT = fileURLToPath(new URL('./supervisor.cjs', import.meta.url));
/** The first process inside a worker's sandbox (src/sandbox/init.ts, bundled alone). */
export const SANDBOX_INIT_SCRIPT = fileURLToPath(new URL('./sandbox-init.js', import.meta.url));
/** The thin `board` of a sandboxed worker (src/worker-board.ts): its verbs go to its supervisor. */
export const WORKER_BOARD_SCRIPT = fileURLToPath(new URL('./worker-board.js', import.meta.url));
/** The census's reader thread (src/census-reader.ts, bundled alone, CommonJS: a thread starts without the ES module loader, ~10 ms sooner): reads files while the main thread parses. */
export const CENSUS_READER_SCRIPT = fileURLToPath(new URL('./census-reader.cjs', import.meta.url));
