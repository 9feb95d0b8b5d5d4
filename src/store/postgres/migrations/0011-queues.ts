/**
 * PostgreSQL migration 0011: queues. A queue row holds its limits and its rate limiter's
 * state; a queue item is a job waiting for a slot or running on one. The store deletes
 * a job's item when the job ends, which frees its slot.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_queues` and `weft_queue_items`. */
export const queues: Migration = {
  version: 11,
  name: 'queues',
  sql: `
CREATE TABLE weft_queues (
  name text COLLATE "C" PRIMARY KEY,
  concurrency integer,
  key_concurrency integer,
  rate_limit integer,
  rate_period_ms bigint,
  aging_ms bigint NOT NULL,
  rate_tat bigint NOT NULL,
  last_key text COLLATE "C",
  source text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE weft_queue_items (
  seq bigserial PRIMARY KEY,
  job text COLLATE "C" NOT NULL UNIQUE,
  queue text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  priority integer NOT NULL,
  state text NOT NULL,
  enqueued_at bigint NOT NULL,
  available_at bigint NOT NULL,
  admitted_at bigint
);
CREATE INDEX weft_queue_items_waiting ON weft_queue_items (queue, state, priority, seq);
CREATE INDEX weft_queue_items_keys ON weft_queue_items (queue, key, state);
`,
};
