import { defineConfig } from 'vitest/config';

/**
 * `npm run test:security`: the attack suite (test/security), run from inside real sandboxed
 * workers. Needs bubblewrap (CI installs it); skips loudly where the sandbox cannot start. Kept out
 * of `npm test` because it plants canaries in the real home folder and runs for a minute or two.
 */
export default defineConfig({
  test: {
    include: ['test/security/**/*.test.ts'],
    env: { TZ: 'UTC' },
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
