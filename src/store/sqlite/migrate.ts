/**
 * Applies the SQLite migrations on open, inside `BEGIN IMMEDIATE`, so several processes
 * opening the same new file at once are safe: the first one in applies them, the others
 * find them applied. A database whose schema is newer than this code is refused with
 * `SCHEMA_TOO_NEW` and left as it was.
 */

import {
  latestVersion,
  type Migration,
  migrationReport,
  planMigrations,
} from '../migration-plan.js';
import type { MigrationReport } from '../migration-report.js';
import { type Db, retryWhileBusy } from './connection.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS weft_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at INTEGER NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
)`;

/**
 * Brings the schema up to date (or, with `apply: false`, only checks it is current).
 * Throws StoreError `SCHEMA_TOO_NEW` or `SCHEMA_OUTDATED`.
 */
export async function migrate(
  db: Db,
  label: string,
  now: number,
  apply = true,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
): Promise<MigrationReport> {
  const latest = latestVersion(migrations);
  // Fast path, without the write lock: a database that is already current.
  const current = await retryWhileBusy(() => readVersion(db), `read the schema of ${label}`);
  if (current === latest && hasEvery(db, migrations))
    return { from: current, to: current, applied: [] };
  return retryWhileBusy(() => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const report = migrateLocked(db, label, now, apply, migrations);
      db.exec('COMMIT');
      return report;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }, `migrate ${label}`);
}

function readVersion(db: Db): number | undefined {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'weft_migrations'")
    .get();
  if (!hasTable) return undefined;
  return (
    (db.prepare('SELECT MAX(version) FROM weft_migrations').pluck().get() as number | null) ?? 0
  );
}

function hasEvery(db: Db, migrations: readonly Migration[]): boolean {
  const count = db.prepare('SELECT COUNT(*) FROM weft_migrations').pluck().get() as number;
  return count === migrations.length;
}

function migrateLocked(
  db: Db,
  label: string,
  now: number,
  apply: boolean,
  migrations: readonly Migration[],
): MigrationReport {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'weft_migrations'")
    .get();
  const rows = hasTable
    ? (db.prepare('SELECT version FROM weft_migrations').all() as { version: number }[])
    : [];
  const plan = planMigrations(
    label,
    rows.map((r) => r.version),
    migrations,
    apply,
  );
  if (!hasTable) db.exec(CREATE_TABLE);
  const record = db.prepare(
    'INSERT INTO weft_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const m of plan.pending) {
    db.exec(m.sql);
    record.run(m.version, m.name, now);
  }
  return migrationReport(plan);
}
