import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Root, namespaces and daemons, minutes each: their own scripts (test:multihost, test:slurm).
    exclude: [...configDefaults.exclude, 'test/multihost/**', 'test/slurm/**'],
    // Schedules are local-time by contract; pin the zone so results do not depend on the host.
    env: { TZ: 'UTC' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
