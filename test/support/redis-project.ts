/**
 * What the `redis` vitest project runs (issue 23; docs/testing.md, "The suite itself").
 *
 * `WEFT_TEST_REDIS` decides:
 * - unset: the project runs when a `redis-server` is found (on PATH, or named by
 *   `WEFT_REDIS_SERVER`), as the `postgres` project runs when PostgreSQL is found, and is
 *   left out, saying so, when none is;
 * - `required` (CI): it runs, and a missing `redis-server` fails the run;
 * - `all` (or `1`): every backend file runs on Redis, as on SQLite and PostgreSQL;
 * - `off`: it is left out.
 *
 * The `redis-cluster` project (the same store on a three-master Redis Cluster started from
 * the same `redis-server`, test/support/redis-cluster.ts) runs with `required` (CI) and
 * `all`: {@link CLUSTER_FILES} with `required`, every backend file with `all`. Left out of a
 * plain `npm test`: six server processes per test process are a heavy start for every
 * contributor's run.
 *
 * Without `all` it runs {@link REDIS_FILES}: what only a store's own behaviour can break
 * (the store contract, the engines and workers on it, crash safety). The other backend
 * files (the CLI, the HTTP server, the dashboard, tracing, the docs' examples) drive the
 * product through the same store contract the conformance suite checks on Redis; they run
 * on SQLite and PostgreSQL, and with `all` on Redis.
 */
import { findRedisServer } from './redis-binary.js';

/** The backend files (globs) the `redis` project runs by default. */
export const REDIS_FILES: readonly string[] = [
  // The store contract: every operation, transactions, notices, the conformance suite.
  'test/backend/store/**/*.test.ts',
  // What only the Redis store has: re-run transactions, the layout version, the durability
  // warning, a committed step surviving a SIGKILL of redis-server.
  'test/backend/redis/**/*.test.ts',
  // The engines and the worker on the store: graph, code-first, client.
  'test/backend/engine/**/*.test.ts',
  'test/backend/durable/**/*.test.ts',
  'test/backend/worker/**/*.test.ts',
  'test/backend/client/**/*.test.ts',
  // Crash safety: worker processes SIGKILLed (and, on Redis, redis-server itself).
  'test/backend/crash/chaos.test.ts',
  'test/backend/crash/revert-crash.test.ts',
  // Leg1 in one add (no 899 after redis-server SIGKILLs), the 789/799 readings.
  'test/backend/crash/leg1-readings.test.ts',
  // The CLI on a Redis URL: the README's flow, and status and list.
  'test/backend/cli/readme-flow.test.ts',
  'test/backend/cli/pipe-output.test.ts',
];

/**
 * The backend files (globs) the `redis-cluster` project runs with `required`: the store
 * contract and the Redis store's own files (the cluster's among them), the graph engine,
 * and the chaos run across the three masters.
 */
export const CLUSTER_FILES: readonly string[] = [
  'test/backend/store/**/*.test.ts',
  'test/backend/redis/**/*.test.ts',
  'test/backend/engine/**/*.test.ts',
  'test/backend/crash/chaos.test.ts',
];

/** Whether the `redis` project runs, and which files. */
export interface RedisProject {
  run: boolean;
  include: readonly string[];
  /** The files of the `redis-cluster` project; none when it does not run. */
  cluster: readonly string[];
  /** Why it does not run, when it does not. */
  skipped?: string;
}

/** Reads `WEFT_TEST_REDIS` (see the file's comment). */
export function redisProject(env: NodeJS.ProcessEnv = process.env): RedisProject {
  const mode = env.WEFT_TEST_REDIS ?? '';
  const every = ['test/backend/**/*.test.ts'];
  if (mode === 'off') {
    return { run: false, include: [], cluster: [], skipped: 'WEFT_TEST_REDIS=off' };
  }
  if (mode === 'all' || mode === '1') return { run: true, include: every, cluster: every };
  if (mode === 'required') return { run: true, include: REDIS_FILES, cluster: CLUSTER_FILES };
  if (mode !== '') {
    throw new Error(`WEFT_TEST_REDIS=${mode}: expected required, all, 1 or off (or unset)`);
  }
  if (findRedisServer(env)) return { run: true, include: REDIS_FILES, cluster: [] };
  return { run: false, include: [], cluster: [], skipped: 'redis-server not found' };
}
