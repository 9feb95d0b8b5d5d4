/**
 * Opens a store from its URL. Backends are loaded on demand, so an embedded user never
 * loads the PostgreSQL driver or the Redis client, and vice versa.
 */
import type { Store } from './store.js';
import type { StoreOptions } from './store-options.js';
import { parseStoreUrl } from './url.js';

/** Opens the store at `url` (the embedded default when absent) and applies migrations. */
export async function openStore(url?: string, options: StoreOptions = {}): Promise<Store> {
  const parsed = parseStoreUrl(url);
  if (parsed.dialect === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
    return openSqliteStore(parsed, options);
  }
  if (parsed.dialect === 'redis') {
    const { openRedisStore } = await import('./redis/redis-store.js');
    return openRedisStore(parsed, options);
  }
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore(parsed, options);
}
