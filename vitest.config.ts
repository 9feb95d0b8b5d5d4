import { defineConfig } from 'vitest/config';

// Unit tests run once. Backend tests (test/backend/**) run twice, unchanged: once on a
// real SQLite file and once on a real PostgreSQL server, switched by WEFT_TEST_STORE.
const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/backend/**'],
        },
      },
      {
        test: {
          ...shared,
          name: 'sqlite',
          include: ['test/backend/**/*.test.ts'],
          env: { WEFT_TEST_STORE: 'sqlite' },
        },
      },
      {
        test: {
          ...shared,
          name: 'postgres',
          include: ['test/backend/**/*.test.ts'],
          env: { WEFT_TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
