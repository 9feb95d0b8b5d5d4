/** Placeholder until the PostgreSQL test harness lands. */
import type { TestStoreLocation } from './store-under-test.js';

/** A fresh database on this test file's own PostgreSQL server. */
export async function freshPostgresDatabase(): Promise<TestStoreLocation> {
  throw new Error('the PostgreSQL test harness is not built yet');
}
