import { defineConfig } from 'vitest/config';

// The real-CLI suite (`npm run test:clients`): slow (real agent CLIs, real workers), so it is kept
// out of `npm test` and run on its own by .ci/run after `npm ci --prefix test/clients`.
export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    env: { TZ: 'UTC' },
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One CLI at a time: each run is a real agent process tree.
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
