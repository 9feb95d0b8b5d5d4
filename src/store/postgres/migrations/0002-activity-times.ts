/**
 * PostgreSQL migration 0002: when an activity started and when it ended (epoch ms, null
 * until then), so `weft status` can show them.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `started_at` and `finished_at` to activities. */
export const activityTimes: Migration = {
  version: 2,
  name: 'activity-times',
  sql: `
ALTER TABLE weft_activities ADD COLUMN started_at bigint;
ALTER TABLE weft_activities ADD COLUMN finished_at bigint;
`,
};
