#!/usr/bin/env node
/**
 * `dist/cli.js`, the `board` executable: runs the CLI bundle (`dist/cli.bundle.cjs`, made by
 * scripts/bundle.mjs) from V8's code cache when it has one for exactly these bytes.
 *
 * Why: every tick, dry-run and worker verb is a fresh process, and compiling the 1.2 MB bundle
 * was ~25 ms of each start (Node 20 has no module compile cache). The build runs `board --help`
 * once with BOARD_WRITE_CODE_CACHE=1, which writes `cli.bundle.cjs.cache` beside the bundle,
 * with the bundle's sha1 in `cli.bundle.cjs.cache.sha1`. A cache that is missing, made from
 * other bytes, or refused by this V8 (another Node) is not used: the bundle is compiled from
 * source, as any script. Nothing else ever writes there.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(here, 'cli.bundle.cjs');
const cacheFile = `${bundle}.cache`;
const hashFile = `${cacheFile}.sha1`;

const source = fs.readFileSync(bundle, 'utf8');
const sha1 = createHash('sha1').update(source).digest('hex');

function readCache(): Buffer | undefined {
  try {
    return fs.readFileSync(hashFile, 'utf8').trim() === sha1 ? fs.readFileSync(cacheFile) : undefined;
  } catch {
    return undefined;
  }
}

const cachedData = readCache();
// The CommonJS wrapper, as Node's own loader puts it around a module.
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
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
