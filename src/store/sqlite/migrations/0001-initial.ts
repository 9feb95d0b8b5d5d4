/**
 * SQLite migration 0001: the initial schema. Times are epoch milliseconds (INTEGER),
 * JSON values are JSON text, counters are decimal text (arbitrary precision). Tables
 * whose rows carry JSON documents keep a rowid (large rows); small keyed rows (counters,
 * timers, waiters) are WITHOUT ROWID.
 */
import type { Migration } from '../../migration-plan.js';

/** The initial schema: jobs, definitions, counters, activities, streams, timers, signals. */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE weft_jobs (
  id TEXT PRIMARY KEY,
  workflow TEXT NOT NULL,
  version INTEGER NOT NULL,
  model TEXT NOT NULL,
  state TEXT NOT NULL,
  input TEXT NOT NULL,
  output TEXT NOT NULL DEFAULT 'null',
  error TEXT,
  context TEXT NOT NULL DEFAULT 'null',
  parent_id TEXT,
  parent_activity TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX weft_jobs_state ON weft_jobs (state, id);
CREATE INDEX weft_jobs_workflow ON weft_jobs (workflow, id);
CREATE INDEX weft_jobs_parent ON weft_jobs (parent_id, id) WHERE parent_id IS NOT NULL;
CREATE INDEX weft_jobs_created ON weft_jobs (created_at, id);

CREATE TABLE weft_definitions (
  workflow TEXT NOT NULL,
  version INTEGER NOT NULL,
  model TEXT NOT NULL,
  definition TEXT NOT NULL,
  source TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (workflow, version)
);

CREATE TABLE weft_counters (
  job TEXT NOT NULL,
  activity TEXT NOT NULL,
  dimension TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (job, activity, dimension, field)
) WITHOUT ROWID;

CREATE TABLE weft_activities (
  job TEXT NOT NULL,
  activity TEXT NOT NULL,
  dimension TEXT NOT NULL,
  status TEXT NOT NULL,
  input TEXT NOT NULL,
  output TEXT NOT NULL,
  error TEXT,
  attempt INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (job, activity, dimension)
);

CREATE TABLE weft_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream TEXT NOT NULL,
  job TEXT,
  payload TEXT NOT NULL,
  deliveries INTEGER NOT NULL DEFAULT 0,
  consumer TEXT,
  lease_until INTEGER,
  available_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX weft_messages_claim ON weft_messages (stream, available_at, id);
CREATE INDEX weft_messages_redelivery ON weft_messages (stream, deliveries) WHERE deliveries > 0;

CREATE TABLE weft_dead_letters (
  id INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  job TEXT,
  payload TEXT NOT NULL,
  deliveries INTEGER NOT NULL,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  dead_at INTEGER NOT NULL
);
CREATE INDEX weft_dead_letters_stream ON weft_dead_letters (stream, id);

CREATE TABLE weft_timers (
  key TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  stream TEXT NOT NULL,
  job TEXT,
  payload TEXT NOT NULL,
  available_at INTEGER
) WITHOUT ROWID;
CREATE INDEX weft_timers_due ON weft_timers (at, key);

CREATE TABLE weft_waiters (
  key TEXT PRIMARY KEY,
  job TEXT,
  stream TEXT NOT NULL,
  message_job TEXT,
  payload TEXT NOT NULL,
  available_at INTEGER,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE weft_signal_buffer (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX weft_signal_buffer_key ON weft_signal_buffer (key, id);
CREATE INDEX weft_signal_buffer_expiry ON weft_signal_buffer (expires_at);
`,
};
