#!/usr/bin/env node
/**
 * `npm run build`'s second step: the two scripts the board runs as processes, `dist/cli.js` and
 * `dist/supervisor.js`, become one file each (esbuild), replacing tsc's entry modules; the rest of
 * tsc's module tree stays in dist/ for tests and tools that import single modules.
 *
 * Why: Node 20 has no compile cache, and resolving, reading and compiling the ~150 ESM files a
 * command loads (zod alone is ~90, its locales included) cost ~90 ms of every `board` start: every
 * tick, every dry-run, every `board card` verb a worker calls. A bundle loads as one file, and
 * the locales nothing uses are left out (zod declares itself free of side effects).
 *
 * Command modules stay loaded on demand: esbuild keeps each `await import('./commands/…')` lazy
 * inside the bundle (its code is parsed but not run until the command is chosen).
 */
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

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

await build({
  entryPoints: { cli: path.join(root, 'src/cli.ts'), supervisor: path.join(root, 'src/supervisor.ts') },
  outdir: path.join(root, 'dist'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The CommonJS dependencies (proper-lockfile, pino) `require` Node's built-ins, which an ES
  // module bundle has to be given.
  banner: { js: "import { createRequire as __boardCreateRequire } from 'node:module';\nconst require = __boardCreateRequire(import.meta.url);" },
  // tsc's source maps describe the module tree, not the bundle; stacks name bundle lines.
  sourcemap: false,
  plugins: [englishOnlyZodLocales],
  logLevel: 'warning',
});
