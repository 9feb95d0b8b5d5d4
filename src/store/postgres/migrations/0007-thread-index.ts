/**
 * Migration 0007: indexes to read one job's counters and activity records of a few
 * dimensional threads (`countersOfJobs`, `activitiesOfJobs` with dimensions) without
 * scanning every thread the job has — a spread of 10,000 items leaves 10,000 threads.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_counters_thread` and `weft_activities_thread`. */
export const threadIndex: Migration = {
  version: 7,
  name: 'thread-index',
  sql: `
CREATE INDEX weft_counters_thread ON weft_counters (job, dimension);
CREATE INDEX weft_activities_thread ON weft_activities (job, dimension);
`,
};
