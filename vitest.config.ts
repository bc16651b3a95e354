import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-CLI suite has its own config and script (npm run test:clients).
    exclude: ['test/clients/**', '**/node_modules/**'],
    // Schedules are local-time by contract; pin the zone so results do not depend on the host.
    env: { TZ: 'UTC' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
