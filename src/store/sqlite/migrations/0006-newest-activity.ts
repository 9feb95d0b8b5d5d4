/**
 * Migration 0006: an index to find each activity's newest record of a job
 * (`newestActivities`) without reading every dimensional thread a long cycle left.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_activities_newest`. */
export const newestActivity: Migration = {
  version: 6,
  name: 'newest-activity',
  sql: `
CREATE INDEX weft_activities_newest ON weft_activities (job, activity, updated_at);
`,
};
