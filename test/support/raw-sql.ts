/**
 * Runs one SQL statement directly against a test database, behind the Store's back, for
 * the few tests that must damage or fake state (a schema "from the future", say). Both
 * dialects accept the statements those tests use.
 */
import Database from 'better-sqlite3';
import { parseStoreUrl } from '../../src/store/url.js';

/** Executes `sql` on the database at `url`; returns the rows of a query. */
export async function rawSql(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const parsed = parseStoreUrl(url);
  if (parsed.dialect === 'sqlite') {
    const db = new Database(parsed.path);
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all() as Record<string, unknown>[];
      statement.run();
      return [];
    } finally {
      db.close();
    }
  }
  if (parsed.dialect === 'redis') throw new Error(`no SQL on the Redis store (${parsed.redacted})`);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: parsed.connectionString });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
