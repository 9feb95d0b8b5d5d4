/**
 * SQLite migration 0016: retention. `weft_retention` holds each workflow's retention
 * policy (from a deployed file's `retention:` or a code-first definition's option); the
 * indexes let a prune find finished jobs by end time, and the rows a job left in the
 * tables that did not index their job, without reading those tables whole.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_retention` and the indexes pruning reads by. */
export const retention: Migration = {
  version: 16,
  name: 'retention',
  sql: `
CREATE TABLE weft_retention (
  workflow TEXT PRIMARY KEY,
  policy TEXT NOT NULL,
  source TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX weft_jobs_finished ON weft_jobs (finished_at, id) WHERE finished_at IS NOT NULL;
CREATE INDEX weft_dead_letters_job ON weft_dead_letters (job);
CREATE INDEX weft_timers_job ON weft_timers (job);
CREATE INDEX weft_waiters_job ON weft_waiters (job);
CREATE INDEX weft_idempotency_job ON weft_idempotency (job);
CREATE INDEX weft_debounces_job ON weft_debounces (job);
`,
};
