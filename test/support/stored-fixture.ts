/**
 * A stored database from test/fixtures, copied where a test may change it: the SQLite
 * file to a temp file, or the plain PostgreSQL dump restored into a fresh database of
 * this test file's server. The fixture itself is never opened in place.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { backend, type TestStoreLocation } from './store-under-test.js';

/**
 * The statements of a plain `pg_dump` file, without the `\restrict` / `\unrestrict`
 * lines pg_dump 15.14+ wraps them in (psql meta-commands). Any other meta-command is an
 * error: the file is not a dump this helper knows.
 */
export function dumpStatements(dump: string): string {
  const lines = dump.split('\n');
  const restrict = lines.find((l) => l.startsWith('\\restrict '));
  const key = restrict?.slice('\\restrict '.length);
  return lines
    .filter((line) => {
      if (key !== undefined && (line === `\\restrict ${key}` || line === `\\unrestrict ${key}`)) {
        return false;
      }
      if (line.startsWith('\\')) throw new Error(`unexpected psql meta-command in dump: ${line}`);
      return true;
    })
    .join('\n');
}

/**
 * A copy of a stored fixture on the backend under test: `<dir>/sqlite.db` for SQLite,
 * `<dir>/postgres.sql` for PostgreSQL. `cleanup` removes the copy.
 */
export async function copyStoredFixture(dir: string): Promise<TestStoreLocation> {
  if (backend === 'sqlite') {
    const tmp = mkdtempSync(join(tmpdir(), 'weft-fixture-'));
    const path = join(tmp, 'weft.db');
    copyFileSync(join(dir, 'sqlite.db'), path);
    return {
      url: `sqlite:${path}`,
      cleanup: async () => rmSync(tmp, { recursive: true, force: true }),
    };
  }
  if (backend === 'redis') throw new Error('the stored fixtures are SQL: there is none for Redis');
  const { freshPostgresDatabase } = await import('./postgres-server.js');
  const location = await freshPostgresDatabase({ empty: true });
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    // One simple-protocol query: the dump's statements, in one implicit transaction.
    await client.query(dumpStatements(readFileSync(join(dir, 'postgres.sql'), 'utf8')));
  } finally {
    await client.end();
  }
  return location;
}
