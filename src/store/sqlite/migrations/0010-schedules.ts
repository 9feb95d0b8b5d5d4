/**
 * SQLite migration 0010: cron schedules. Each row is one schedule — its expression, time
 * zone, workflow, input and policies — and where it stands: the first tick not handled
 * yet, a tick held back for a running job, the last tick's job.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_schedules`. */
export const schedules: Migration = {
  version: 10,
  name: 'schedules',
  sql: `
CREATE TABLE weft_schedules (
  name TEXT PRIMARY KEY,
  workflow TEXT NOT NULL,
  cron TEXT NOT NULL,
  timezone TEXT NOT NULL,
  input TEXT NOT NULL,
  overlap TEXT NOT NULL,
  catchup_ms INTEGER NOT NULL,
  paused INTEGER NOT NULL,
  next_at INTEGER,
  buffered_at INTEGER,
  last_tick_at INTEGER,
  last_job TEXT,
  last_error TEXT,
  runs INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
};
