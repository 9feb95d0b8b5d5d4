import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { useMemoryTmpdir } from './test/support/memory-tmpdir.js';
import { redisProject } from './test/support/redis-project.js';
import UnitFirstSequencer from './test/support/sequencer.js';

// Unit tests run once. Backend tests (test/backend/**) run unchanged on a real SQLite
// file and on a real PostgreSQL server, and the store's, engines' and crash files also on
// a real Redis server, switched by WEFT_TEST_STORE. The postgres project starts one server
// for the whole run (test/support/postgres-global.ts) and each test file makes fresh
// databases of its own on it.
// Temporary files (test servers' data, fresh SQLite files, CLI work folders) go to a
// folder of this run in memory, /dev/shm, where there is one: creating files on these
// machines' disk is slow (test/support/memory-tmpdir.ts; WEFT_TEST_TMPDIR=off keeps /tmp).
useMemoryTmpdir();

const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

// The PostgreSQL half runs when a server can be started (or WEFT_TEST_DATABASE_URL names
// one) and whenever CI requires it (WEFT_TEST_POSTGRES=required), in which case a missing
// server fails the run. Otherwise it is left out, and says so.
const postgres =
  process.env.WEFT_TEST_POSTGRES === 'required' ||
  Boolean(process.env.WEFT_TEST_DATABASE_URL) ||
  existsSync('/usr/lib/postgresql/15/bin/postgres');
if (!postgres) {
  console.warn('weft: PostgreSQL 15 not found; the postgres test project is skipped');
}

// The Redis half (issue 23) runs when `redis-server` is found, and whenever CI requires it
// (WEFT_TEST_REDIS=required), in which case a missing server fails the run. It runs the
// store, engine, worker and crash files and a few CLI files, not every backend file
// (test/support/redis-project.ts says which and why); WEFT_TEST_REDIS=all runs them all.
const redis = redisProject();
if (!redis.run) console.warn(`weft: ${redis.skipped}; the redis test project is skipped`);

const backend = (name: 'sqlite' | 'postgres' | 'redis' | 'redis-cluster') => ({
  extends: true as const,
  test: {
    ...shared,
    name,
    include:
      name === 'redis'
        ? [...redis.include]
        : name === 'redis-cluster'
          ? [...redis.cluster]
          : ['test/backend/**/*.test.ts'],
    // Test files share their worker processes instead of each importing src/ afresh in a
    // new one (docs/testing.md, "The suite itself"): each still gets fresh stores of its
    // own, and must stop what it starts and leave process-wide state as it found it. On
    // Redis each process starts one server and gives every fresh store a database of it,
    // numbered on across the files the process runs.
    // A cluster has one database, so the redis-cluster project keeps a process per file.
    isolate: name === 'redis-cluster',
    env: { WEFT_TEST_STORE: name },
    ...(name === 'postgres' ? { globalSetup: ['test/support/postgres-global.ts'] } : {}),
  },
});

export default defineConfig({
  // Examples import the package by name; tests run them against the source.
  resolve: { alias: { 'weft-engine': fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    // Two test files per core: most of a backend file's time is spent waiting on the
    // processes it starts (weft workers, the CLI, its PostgreSQL server) and on timers, so
    // vitest's default (cores - 1, one file at a time on two cores) leaves the CPU idle.
    // On a 2-core machine this halves the suite (about 26 to 13 minutes). `--maxWorkers`
    // on the command line overrides it.
    maxWorkers: Math.max(2, availableParallelism() * 2),
    // The unit project first: its longest files then run beside the backend files instead
    // of alone at the end (test/support/sequencer.ts).
    sequence: { sequencer: UnitFirstSequencer },
    // The CLI runs from dist/ in subprocess tests: build it once per run.
    globalSetup: ['test/support/build-dist.ts'],
    projects: [
      {
        extends: true as const,
        test: {
          ...shared,
          name: 'unit',
          // Unit files share their worker processes instead of each starting a fresh one
          // that imports src/ again (the unit project's summed import time fell from 144 s
          // to 40 s, docs/testing.md): a unit test must leave no global state behind.
          isolate: false,
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: ['test/backend/**', 'test/browser/**'],
        },
      },
      // The dashboard in a real browser (Debian's chromium through playwright-core).
      {
        extends: true as const,
        test: { ...shared, name: 'browser', include: ['test/browser/**/*.test.ts'] },
      },
      backend('sqlite'),
      ...(postgres ? [backend('postgres')] : []),
      ...(redis.run ? [backend('redis')] : []),
      // The same Redis store on a three-master Redis Cluster (test/support/redis-cluster.ts).
      ...(redis.cluster.length > 0 ? [backend('redis-cluster')] : []),
    ],
  },
});
