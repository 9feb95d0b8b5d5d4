/**
 * Migration 0009: `weft_activities_newest` becomes a partial index (`updated_at >= 0`, which
 * every record meets), so only the queries that say so — the newest-record reads — can use
 * it, as on PostgreSQL (where the plain index competed with the primary key for lookups of
 * one record and read every thread of an activity to find it). Both stores keep one
 * schema and one set of queries.
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
