import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * Run one of the board's CommonJS bundles (scripts/bundle.mjs) from V8's code cache when it has
 * one for exactly these bytes: `dist/cli.js` runs `cli.bundle.cjs` (every tick, dry-run and
 * worker verb), `dist/supervisor.js` runs `supervisor.bundle.cjs` (every run's supervisor).
 *
 * Why: each is a fresh process, and compiling a bundle of a megabyte was tens of milliseconds of
 * each start (Node 20 has no module compile cache). The build runs each once with
 * BOARD_WRITE_CODE_CACHE=1, which writes `<bundle>.cache` beside it, with the bundle's sha1 in
 * `<bundle>.cache.sha1`. A cache that is missing, made from other bytes, or refused by this V8
 * (another Node) is not used: the bundle is compiled from source, as any script. Nothing else
 * ever writes there.
 */
export function runBundle(here: string, name: string): void {
  const bundle = path.join(here, name);
  const cacheFile = `${bundle}.cache`;
  const hashFile = `${cacheFile}.sha1`;

  const bytes = fs.readFileSync(bundle);
  const sha1 = createHash('sha1').update(bytes).digest('hex');
  // The build writes the bundle in ASCII (scripts/bundle.mjs): as latin1 it is the same text, made
  // without a UTF-8 decoder and kept as a one-byte string. Any other bundle is read as UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');

  const readCache = (): Buffer | undefined => {
    try {
      return fs.readFileSync(hashFile, 'utf8').trim() === sha1 ? fs.readFileSync(cacheFile) : undefined;
    } catch {
      return undefined;
    }
  };

  const cachedData = readCache();
  // The bundle is a CommonJS module already inside the function Node's own loader wraps one in.
  const script = new vm.Script(source, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (process.env.BOARD_WRITE_CODE_CACHE === '1') {
    // After the run, so the functions it compiled are in the cache too.
    process.once('exit', () => {
      fs.writeFileSync(cacheFile, script.createCachedData());
      fs.writeFileSync(hashFile, `${sha1}\n`);
    });
  }
  const run = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string) => void;
  const module = { exports: {} };
  run(module.exports, createRequire(bundle), module, bundle, here);
}
