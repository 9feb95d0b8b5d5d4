/**
 * Vitest global set-up of the `postgres` project: one throwaway PostgreSQL server for the
 * whole run instead of one per test file. The test files find it through
 * `WEFT_TEST_DATABASE_URL` (set here, before vitest forks them) and each makes fresh
 * databases of its own on it (`freshPostgresDatabase`), dropped when the test is done, so
 * no file sees another's data. Tests that stop or restart a server under a running worker
 * start their own (`restartablePostgres`).
 *
 * When `WEFT_TEST_DATABASE_URL` is already set, that server is used and nothing starts.
 * When no server can start, nothing is set: each file then tries for itself and skips
 * (or, with `WEFT_TEST_POSTGRES=required`, fails naming why).
 */
import { startSharedPostgres, stopSync } from './postgres-server.js';

export default async function sharedPostgres(): Promise<(() => void) | undefined> {
  if (process.env.WEFT_TEST_DATABASE_URL) return undefined;
  try {
    process.env.WEFT_TEST_DATABASE_URL = await startSharedPostgres();
  } catch {
    return undefined;
  }
  return () => {
    delete process.env.WEFT_TEST_DATABASE_URL;
    stopSync();
  };
}
