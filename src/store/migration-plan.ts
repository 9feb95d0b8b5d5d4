/**
 * The migration bookkeeping both backends follow, kept above them: what a numbered
 * migration is, which of them a database still needs given the versions it recorded, and
 * when opening must refuse — a schema newer than this code (`SCHEMA_TOO_NEW`), or one that
 * needs migrations when they are not to be applied (`SCHEMA_OUTDATED`). The backends only
 * read the recorded versions, run the SQL and record it, under their own lock.
 */
import { StoreError } from '../core/errors.js';
import type { MigrationReport } from './migration-report.js';

/** One numbered schema change of a backend. */
export interface Migration {
  /** 1, 2, 3…: applied in this order, each once. */
  version: number;
  /** A short name, recorded in `weft_migrations`. */
  name: string;
  /** The statements, run in one transaction. */
  sql: string;
}

/** What a database needs, from the versions it recorded. */
export interface MigrationPlan {
  /** The highest version recorded (0 for a new database). */
  current: number;
  /** The highest version this code knows. */
  latest: number;
  /** The migrations not recorded yet, oldest first. */
  pending: Migration[];
}

/** The newest version among `migrations` (0 when there are none). */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/**
 * What the database `label` still needs, given the versions it recorded. Throws
 * StoreError `SCHEMA_TOO_NEW` when it recorded a version newer than any of `migrations`,
 * and `SCHEMA_OUTDATED` when some are pending and `apply` is false.
 */
export function planMigrations(
  label: string,
  recorded: Iterable<number>,
  migrations: readonly Migration[],
  apply: boolean,
): MigrationPlan {
  const done = new Set(recorded);
  const current = [...done].reduce((max, v) => Math.max(max, v), 0);
  const latest = latestVersion(migrations);
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
  return { current, latest, pending };
}

/** The report of a plan once its pending migrations are applied. */
export function migrationReport(plan: MigrationPlan): MigrationReport {
  return {
    from: plan.current,
    to: Math.max(plan.current, plan.latest),
    applied: plan.pending.map((m) => m.name),
  };
}
