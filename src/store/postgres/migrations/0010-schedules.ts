/**
 * PostgreSQL migration 0010: cron schedules. Each row is one schedule — its expression,
 * time zone, workflow, input and policies — and where it stands: the first tick not
 * handled yet, a tick held back for a running job, the last tick's job.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_schedules`. */
export const schedules: Migration = {
  version: 10,
  name: 'schedules',
  sql: `
CREATE TABLE weft_schedules (
  name text COLLATE "C" PRIMARY KEY,
  workflow text NOT NULL,
  cron text NOT NULL,
  timezone text NOT NULL,
  input json NOT NULL,
  overlap text NOT NULL,
  catchup_ms bigint NOT NULL,
  paused boolean NOT NULL,
  next_at bigint,
  buffered_at bigint,
  last_tick_at bigint,
  last_job text,
  last_error text,
  runs bigint NOT NULL,
  skipped bigint NOT NULL,
  source text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
`,
};
