import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites with their own config and script: the real CLIs (npm run test:clients), and the ones
    // that need root, namespaces and daemons, minutes each (npm run test:multihost, test:slurm), and the attack suite (npm run test:security).
    exclude: [...configDefaults.exclude, 'test/clients/**', 'test/multihost/**', 'test/slurm/**', 'test/security/**'],
    // Schedules are local-time by contract; pin the zone so results do not depend on the host.
    env: { TZ: 'UTC' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
