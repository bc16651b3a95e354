#!/usr/bin/env node
/**
 * `npm run build`'s second step: what the board runs as processes, bundled by esbuild over tsc's
 * output in dist/ (the rest of tsc's module tree stays there for tests and tools that import
 * single modules):
 * - `dist/cli.bundle.cjs`: the whole CLI in one CommonJS file, run by `dist/cli.js`
 *   (src/launcher.ts) from V8's code cache, which this script makes by running `board --help`
 *   once with BOARD_WRITE_CODE_CACHE=1;
 * - `dist/supervisor.bundle.cjs`: the per-run supervisor in one CommonJS file, run by
 *   `dist/supervisor.js` (src/supervisor-launcher.ts) from its code cache, made by starting it
 *   once without a job;
 * - `dist/sandbox-init.js`: the first process inside a worker's sandbox (its bridges), one file.
 * - `dist/worker-board.js`: the thin `board` a sandboxed worker runs (verbs over a socket).
 * - `dist/census-reader.cjs`: the census's reader thread (reads files while the CLI parses).
 *
 * Why: Node 20 has no compile cache, and resolving, reading and compiling the ~150 ES modules a
 * command loads (zod alone is ~90, its locales included) cost ~90 ms of every `board` start:
 * every tick, every dry-run, every `board card` verb a worker calls; compiling the bundle itself
 * ~25 ms more, which the code cache saves. Command modules stay loaded on demand: esbuild keeps
 * each `await import('./commands/…')` lazy inside the bundle.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');

/**
 * zod's namespace re-exports all ~45 of its message locales (a quarter of the bundle, parsed and
 * initialised at every start); the board uses English, which zod installs itself from
 * `locales/en.js`. Its `locales/index.js` becomes English only: `z.locales.en` stays, the rest is
 * not shipped.
 */
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  plugins: [englishOnlyZodLocales],
  // tsc's source maps describe the module tree, not the bundles; stacks name bundle lines.
  sourcemap: false,
  logLevel: 'warning',
};

/**
 * An entry as a CommonJS bundle (the form V8's code cache takes through node:vm) plus its launcher
 * (src/launch-bundle.ts), which runs the bundle from that cache. `import.meta.url` (only
 * src/entry-points.ts and the sandbox probe use it) becomes the bundle's own URL: it sits in
 * dist/, as those modules do.
 */
async function cachedBundle(entry, bundleName, launcher, launcherName) {
  const out = await build({
    ...common,
    entryPoints: [path.join(root, entry)],
    format: 'cjs',
    write: false,
    outfile: path.join(dist, bundleName),
    define: { 'import.meta.url': '__boardBundleUrl' },
    // "use strict" first: ES module code is strict, and a directive after the banner would not count.
    banner: { js: "'use strict';\nvar __boardBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  // Written as the launcher compiles it (src/launch-bundle.ts): inside the function Node's own
  // loader puts around a CommonJS module (so no `#!` line), which the launcher would otherwise
  // concatenate, a 1.5 MB copy, on every start. And in ASCII, which it reads as latin1: esbuild
  // escapes strings, but comments keep their `…` and `→`, and one such character made the whole
  // source a two-byte string, ~20 ms of every start to decode, hash and compile. An escape is the
  // same character in a string, a template or a regular expression, and nothing in a comment.
  const body = out.outputFiles[0].text.replace(/^#!.*\n/, '').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  fs.writeFileSync(path.join(dist, bundleName), `(function (exports, require, module, __filename, __dirname) {${body}\n})`);
  await build({ ...common, entryPoints: [path.join(root, launcher)], format: 'esm', outfile: path.join(dist, launcherName) });
  // The same launcher as CommonJS (`cli.cjs`, `supervisor.cjs`): what `board` (package.json's bin),
  // the service units, the workers' BOARD_BIN and every run's supervisor start. An ES module entry
  // makes Node start its ES module loader first, ~15 ms of every start here; the `.js` launchers
  // stay for what already names them (units installed before, `node dist/cli.js` in scripts).
  await build({
    ...common,
    entryPoints: [path.join(root, launcher)],
    format: 'cjs',
    outfile: path.join(dist, launcherName.replace(/\.js$/, '.cjs')),
    define: { 'import.meta.url': '__launcherUrl' },
    banner: { js: "'use strict';\nvar __launcherUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
}

await cachedBundle('src/cli.ts', 'cli.bundle.cjs', 'src/launcher.ts', 'cli.js');
// The supervisor the same way: every run starts one.
await cachedBundle('src/supervisor.ts', 'supervisor.bundle.cjs', 'src/supervisor-launcher.ts', 'supervisor.js');

// The first process inside a worker's sandbox: Node built-ins only, one file, started before
// seccomp (src/sandbox/init.ts).
await build({ ...common, entryPoints: [path.join(root, 'src/sandbox/init.ts')], format: 'esm', outfile: path.join(dist, 'sandbox-init.js') });
// The census's reader thread (src/census-reader.ts): Node built-ins and the census's own read only,
// one file, started by a full census over many files (src/vault/read-ahead.ts).
// CommonJS: a thread started on it skips the ES module loader's start-up (~10 ms, more while the
// main thread keeps the other core busy).
await build({ ...common, entryPoints: [path.join(root, 'src/census-reader.ts')], format: 'cjs', outfile: path.join(dist, 'census-reader.cjs') });
// The thin `board` of a sandboxed worker (src/worker-board.ts): Node built-ins only, loaded with
// import(), so the file has no import or export statement and runs as it is where the sandbox
// binds it (`/run/board/bin/board`: no .js, no package.json, which makes it CommonJS to Node).
await build({ ...common, entryPoints: [path.join(root, 'src/worker-board.ts')], format: 'esm', outfile: path.join(dist, 'worker-board.js') });
{
  const thin = fs.readFileSync(path.join(dist, 'worker-board.js'), 'utf8');
  if (/^\s*(import|export)\b/m.test(thin.replace(/^#!.*\n/, ''))) throw new Error('dist/worker-board.js has an import or export statement: it must run as CommonJS too');
}
fs.chmodSync(path.join(dist, 'worker-board.js'), 0o755);

// tsc's maps of the replaced entry modules would describe code that is not there.
for (const stale of ['cli.js.map', 'supervisor.js.map', 'supervisor-launcher.js', 'supervisor-launcher.js.map', 'worker-board.js.map', 'census-reader.js', 'census-reader.js.map']) fs.rmSync(path.join(dist, stale), { force: true });

// Each code cache made afresh: a process that loaded the last one (still valid when the bundle's
// bytes did not change) would write back every function it held, whatever ran since, and the
// cache would depend on the builds before.
for (const name of ['cli.bundle.cjs', 'supervisor.bundle.cjs']) for (const ext of ['.cache', '.cache.sha1']) fs.rmSync(path.join(dist, `${name}${ext}`), { force: true });
execFileSync(process.execPath, [path.join(dist, 'cli.cjs'), '--help'], { env: { ...process.env, BOARD_WRITE_CODE_CACHE: '1' }, stdio: 'ignore' });
{
  // Started without a job, the supervisor loads everything and exits 2: the code cache of its load.
  const made = spawnSync(process.execPath, [path.join(dist, 'supervisor.cjs')], { env: { PATH: process.env.PATH, BOARD_WRITE_CODE_CACHE: '1' }, stdio: 'ignore' });
  if (made.status !== 2 || !fs.existsSync(path.join(dist, 'supervisor.bundle.cjs.cache'))) throw new Error(`dist/supervisor.cjs did not start as a supervisor without a job does (exit ${made.status ?? made.signal})`);
}
