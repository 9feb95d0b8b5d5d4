/**
 * Applies the PostgreSQL migrations on open, in one transaction that first takes a
 * transaction-level advisory lock, so several processes opening one new database at once
 * are safe: the first applies them, the others wait and find them applied. A database
 * whose schema is newer than this code is refused with `SCHEMA_TOO_NEW` and left as it
 * was; with `apply: false`, one that needs migrations is `SCHEMA_OUTDATED`.
 *
 * Most opens find the schema current: they read the applied versions without a
 * transaction or the lock, two statements where the locked way takes five (a migration
 * another process has not committed yet is not seen, so that open takes the lock and
 * waits for it). Only a database that needs something, or whose versions cannot be read,
 * goes the locked way.
 */

import type pg from 'pg';
import { type Migration, migrationReport, planMigrations } from '../migration-plan.js';
import type { MigrationReport } from '../migration-report.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';

/** The advisory lock all weft migrations take (any bigint unlikely to collide). */
export const MIGRATION_LOCK = 7_306_085_931_548_295_475n;

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
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<MigrationReport> {
  const current = await currentSchema(client, label, apply, migrations);
  if (current) return current;
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    const hasTable = await migrationsTableExists(client);
    const rows = hasTable
      ? (await client.query<{ version: number }>('SELECT version FROM weft_migrations')).rows
      : [];
    const plan = planMigrations(
      label,
      rows.map((r) => Number(r.version)),
      migrations,
      apply,
    );
    if (!hasTable) await client.query(CREATE_TABLE);
    for (const m of plan.pending) {
      await client.query(m.sql);
      await client.query('INSERT INTO weft_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
    await client.query('COMMIT');
    return migrationReport(plan);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * The report of a schema that needs nothing, read outside a transaction; undefined when it
 * needs something or cannot be read that way (no `weft_migrations` yet, a version this
 * code does not know): {@link migrate} then decides under its lock.
 */
async function currentSchema(
  client: pg.ClientBase,
  label: string,
  apply: boolean,
  migrations: readonly Migration[],
): Promise<MigrationReport | undefined> {
  try {
    // Asked first, so that a new database's first open logs no error on the server.
    if (!(await migrationsTableExists(client))) return undefined;
    const { rows } = await client.query<{ version: number }>('SELECT version FROM weft_migrations');
    const plan = planMigrations(
      label,
      rows.map((r) => Number(r.version)),
      migrations,
      apply,
    );
    return plan.pending.length === 0 ? migrationReport(plan) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `weft_migrations` exists in the schema new tables go to, read from the catalog
 * with the statement's own snapshot. Not `to_regclass`: that looks the name up in the
 * connection's catalog cache, which a lookup that found nothing fills with "no such
 * table", and which waiting on an advisory lock does not refresh. An open that found no
 * table, then waited for another process's migration, took the table for missing and
 * applied every migration again (`relation "weft_jobs" already exists`).
 */
async function migrationsTableExists(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_catalog.pg_class c
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = 'weft_migrations' AND n.nspname = current_schema()
     ) AS ok`,
  );
  return rows[0]?.ok === true;
}
