/**
 * PostgreSQL migration 0004: a job's history, one row per committed step (a message, an
 * inline step, a decision, a start, a cancel): what it changed, when, and which worker
 * committed it. `seq` numbers a job's rows 1, 2, 3… in commit order (unique with the job,
 * so two writers that did not hold the job's lock cannot both take a number); `id` is
 * monotonic across the store.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_history`. */
export const history: Migration = {
  version: 4,
  name: 'history',
  sql: `
CREATE TABLE weft_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  kind text NOT NULL,
  activity text COLLATE "C",
  dimension text COLLATE "C" NOT NULL DEFAULT '',
  change json NOT NULL,
  at bigint NOT NULL,
  worker text
);
CREATE UNIQUE INDEX weft_history_job_seq ON weft_history (job, seq);
`,
};
