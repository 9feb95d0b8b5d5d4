/**
 * PostgreSQL migration 0014: a queue's per-key rate limit and throttle policy, the
 * per-key rate limiter's state, and the waits of its admitted jobs (a histogram).
 */
import type { Migration } from '../../migration-plan.js';

/** Adds the columns to `weft_queues`. */
export const queueLimits: Migration = {
  version: 14,
  name: 'queue-limits',
  sql: `
ALTER TABLE weft_queues ADD COLUMN key_rate_limit integer;
ALTER TABLE weft_queues ADD COLUMN key_rate_period_ms bigint;
ALTER TABLE weft_queues ADD COLUMN throttle text NOT NULL DEFAULT 'wait';
ALTER TABLE weft_queues ADD COLUMN key_tats jsonb NOT NULL DEFAULT '{}';
ALTER TABLE weft_queues ADD COLUMN waits jsonb NOT NULL DEFAULT '{"count":0,"sumMs":0,"buckets":[]}';
`,
};
