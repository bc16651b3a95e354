import { defineConfig } from 'vitest/config';

/** `npm run test:multihost` and `npm run test:slurm`: the suites that bring up hosts and daemons (root). */
export default defineConfig({
  test: {
    include: ['test/multihost/**/*.test.ts', 'test/slurm/**/*.test.ts'],
    env: { TZ: 'UTC' },
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One at a time: they share the machine's namespaces names and its two cores.
    fileParallelism: false,
  },
});
