/**
 * Applies the PostgreSQL migrations on open, in one transaction that first takes a
 * transaction-level advisory lock, so several processes opening one new database at once
 * are safe: the first applies them, the others wait and find them applied. A database
 * whose schema is newer than this code is refused with `SCHEMA_TOO_NEW` and left as it
 * was; with `apply: false`, one that needs migrations is `SCHEMA_OUTDATED`.
 */

import type pg from 'pg';
import { StoreError } from '../../core/errors.js';
import type { MigrationReport } from '../migration-report.js';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations/index.js';

/** The advisory lock all weft migrations take (any bigint unlikely to collide). */
const MIGRATION_LOCK = 7_306_085_931_548_295_475n;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS weft_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Brings the schema up to date (or, with `apply: false`, only checks it is current). */
export async function migrate(
  client: pg.ClientBase,
  label: string,
  apply = true,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<MigrationReport> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    const exists = await client.query("SELECT to_regclass('weft_migrations') IS NOT NULL AS ok");
    const hasTable = exists.rows[0]?.ok === true;
    const rows = hasTable
      ? (await client.query<{ version: number }>('SELECT version FROM weft_migrations')).rows
      : [];
    const done = new Set(rows.map((r) => Number(r.version)));
    const current = [...done].reduce((max, v) => Math.max(max, v), 0);
    if (current > latest) {
      throw new StoreError(
        `the database ${label} has schema version ${current}, newer than this version of weft understands (${latest}); upgrade weft, or use another database`,
        { code: 'SCHEMA_TOO_NEW' },
      );
    }
    const pending = migrations
      .filter((m) => !done.has(m.version))
      .sort((a, b) => a.version - b.version);
    if (pending.length > 0 && !apply) {
      throw new StoreError(
        `the database ${label} is at schema version ${current} and this weft needs ${latest}; open it with migrations enabled (migrate: true)`,
        { code: 'SCHEMA_OUTDATED' },
      );
    }
    if (!hasTable) await client.query(CREATE_TABLE);
    for (const m of pending) {
      await client.query(m.sql);
      await client.query('INSERT INTO weft_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
    await client.query('COMMIT');
    return { from: current, to: Math.max(current, latest), applied: pending.map((m) => m.name) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
