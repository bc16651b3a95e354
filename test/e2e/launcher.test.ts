import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The shipped `board` (dist/cli.cjs, package.json's bin; dist/cli.js is the same launcher as an ES
 * module) runs the CLI bundle from the code cache the build made, and only when it fits.
 */
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const BUNDLE_FILES = ['cli.bundle.cjs', 'cli.bundle.cjs.cache', 'cli.bundle.cjs.cache.sha1'];

/** A copy of the launchers, the bundle and its cache: the bundle holds its dependencies. */
function copyOfDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-launcher-'));
  for (const name of ['cli.cjs', 'cli.js', ...BUNDLE_FILES]) fs.copyFileSync(path.join(DIST, name), path.join(dir, name));
  return dir;
}

function helpOf(dir: string, launcher: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [path.join(dir, launcher), '--help'], { encoding: 'utf8', env: { ...process.env, BOARD_WRITE_CODE_CACHE: '', ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const sha1 = (file: string) => createHash('sha1').update(fs.readFileSync(file, 'utf8')).digest('hex');

describe('dist/cli.cjs and dist/cli.js, the launchers', () => {
  it('board is the CommonJS launcher, which the board also starts for workers and units', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(DIST, '..', 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin.board).toBe('dist/cli.cjs');
    // CommonJS whatever package.json's "type": no import statement, and the extension says so.
    expect(fs.readFileSync(path.join(DIST, 'cli.cjs'), 'utf8')).not.toMatch(/^\s*import\s/m);
    expect(fs.readFileSync(path.join(DIST, 'supervisor.cjs'), 'utf8')).not.toMatch(/^\s*import\s/m);
  });

  it('ships a code cache made from exactly the bundle it ships', () => {
    expect(fs.readFileSync(path.join(DIST, 'cli.bundle.cjs.cache.sha1'), 'utf8').trim()).toBe(sha1(path.join(DIST, 'cli.bundle.cjs')));
    expect(fs.statSync(path.join(DIST, 'cli.bundle.cjs.cache')).size).toBeGreaterThan(100_000);
  });

  it.each(['cli.cjs', 'cli.js'])('%s runs the same with its cache, with a cache of other bytes, and with none; and never writes one unasked', (launcher) => {
    const dir = copyOfDist();
    const SHIPPED = [launcher, ...BUNDLE_FILES];
    const help = (d: string, env: NodeJS.ProcessEnv = {}) => helpOf(d, launcher, env);
    const reference = help(dir);
    expect(reference).toMatchObject({ code: 0, stderr: '' });
    expect(reference.stdout).toContain('Usage: board');
    const before = SHIPPED.map((n) => fs.readFileSync(path.join(dir, n)));

    fs.writeFileSync(path.join(dir, 'cli.bundle.cjs.cache'), Buffer.alloc(4096, 7));
    expect(help(dir)).toEqual(reference);
    fs.writeFileSync(path.join(dir, 'cli.bundle.cjs.cache.sha1'), `${'0'.repeat(40)}\n`);
    expect(help(dir)).toEqual(reference);
    fs.rmSync(path.join(dir, 'cli.bundle.cjs.cache'));
    fs.rmSync(path.join(dir, 'cli.bundle.cjs.cache.sha1'));
    expect(help(dir)).toEqual(reference);
    expect(fs.existsSync(path.join(dir, 'cli.bundle.cjs.cache'))).toBe(false);

    // Asked (the build's own step), it writes the cache of these bytes again.
    expect(help(dir, { BOARD_WRITE_CODE_CACHE: '1' })).toEqual(reference);
    expect(fs.readFileSync(path.join(dir, 'cli.bundle.cjs.cache.sha1'), 'utf8').trim()).toBe(sha1(path.join(dir, 'cli.bundle.cjs')));
    expect(help(dir)).toEqual(reference);
    expect(fs.readFileSync(path.join(dir, launcher))).toEqual(before[0]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
