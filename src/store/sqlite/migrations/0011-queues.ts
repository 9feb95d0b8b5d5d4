/**
 * SQLite migration 0011: queues. A queue row holds its limits and its rate limiter's
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
  name TEXT PRIMARY KEY,
  concurrency INTEGER,
  key_concurrency INTEGER,
  rate_limit INTEGER,
  rate_period_ms INTEGER,
  aging_ms INTEGER NOT NULL,
  rate_tat INTEGER NOT NULL,
  last_key TEXT,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE weft_queue_items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job TEXT NOT NULL UNIQUE,
  queue TEXT NOT NULL,
  key TEXT NOT NULL,
  priority INTEGER NOT NULL,
  state TEXT NOT NULL,
  enqueued_at INTEGER NOT NULL,
  available_at INTEGER NOT NULL,
  admitted_at INTEGER
);
CREATE INDEX weft_queue_items_waiting ON weft_queue_items (queue, state, priority, seq);
CREATE INDEX weft_queue_items_keys ON weft_queue_items (queue, key, state);
`,
};
