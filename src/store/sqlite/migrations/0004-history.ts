/**
 * SQLite migration 0004: a job's history, one row per committed step (a message, an
 * inline step, a decision, a start, a cancel): what it changed, when, and which worker
 * committed it. `seq` numbers a job's rows 1, 2, 3… in commit order; `id` is monotonic
 * across the store (AUTOINCREMENT never reuses one).
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_history`. */
export const history: Migration = {
  version: 4,
  name: 'history',
  sql: `
CREATE TABLE weft_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  activity TEXT,
  dimension TEXT NOT NULL DEFAULT '',
  change TEXT NOT NULL,
  at INTEGER NOT NULL,
  worker TEXT
);
CREATE UNIQUE INDEX weft_history_job_seq ON weft_history (job, seq);
`,
};
