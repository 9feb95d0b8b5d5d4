/**
 * Migration 0009: `weft_activities_newest` becomes a partial index (`updated_at >= 0`, which
 * every record meets), so only the queries that say so — the newest-record reads — can use
 * it. As a plain (job, activity, updated_at) index it competed with the primary key for
 * lookups of one record: with statistics that predate a job (every new job's case), the
 * planner rated both at one row and took the smaller newest index, then read every thread
 * of that activity to find one record — a spread of 10,000 items made each write of a
 * batch read thousands of rows.
 */
import type { Migration } from '../../migration-plan.js';

/** Rebuilds `weft_activities_newest` as a partial index. */
export const newestPartial: Migration = {
  version: 9,
  name: 'newest-partial',
  sql: `
DROP INDEX weft_activities_newest;
CREATE INDEX weft_activities_newest ON weft_activities (job, activity, updated_at)
  WHERE updated_at >= 0;
`,
};
