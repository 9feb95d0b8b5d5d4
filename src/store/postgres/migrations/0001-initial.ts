/**
 * PostgreSQL migration 0001: the initial schema. Times are epoch milliseconds (`bigint`),
 * JSON values are `json` (kept as written: key order and every string survive), counters
 * are `numeric` (arbitrary precision). Keys and names are `COLLATE "C"`, so listings sort
 * by bytes as on SQLite, whatever the database's locale.
 *
 * A message's `available_at` is the time it becomes claimable: when it was appended (or
 * its delay ends), and while it is held, its lease end. So "claimable" is one index range,
 * `stream = $1 AND available_at <= $now`, for new, released and expired messages alike.
 */
import type { Migration } from '../../migration-plan.js';

/** The initial schema: jobs, definitions, counters, activities, streams, timers, signals. */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE weft_jobs (
  id text COLLATE "C" PRIMARY KEY,
  workflow text COLLATE "C" NOT NULL,
  version integer NOT NULL,
  model text NOT NULL,
  state text NOT NULL,
  input json NOT NULL,
  output json NOT NULL DEFAULT 'null',
  error json,
  context json NOT NULL DEFAULT 'null',
  parent_id text COLLATE "C",
  parent_activity text COLLATE "C",
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  finished_at bigint
);
CREATE INDEX weft_jobs_state ON weft_jobs (state, id);
CREATE INDEX weft_jobs_workflow ON weft_jobs (workflow, id);
CREATE INDEX weft_jobs_parent ON weft_jobs (parent_id, id) WHERE parent_id IS NOT NULL;
CREATE INDEX weft_jobs_created ON weft_jobs (created_at, id);

CREATE TABLE weft_definitions (
  workflow text COLLATE "C" NOT NULL,
  version integer NOT NULL,
  model text NOT NULL,
  definition json NOT NULL,
  source text,
  created_at bigint NOT NULL,
  PRIMARY KEY (workflow, version)
);

CREATE TABLE weft_counters (
  job text COLLATE "C" NOT NULL,
  activity text COLLATE "C" NOT NULL DEFAULT '',
  dimension text COLLATE "C" NOT NULL DEFAULT '',
  field text COLLATE "C" NOT NULL,
  value numeric NOT NULL,
  PRIMARY KEY (job, activity, dimension, field)
);

CREATE TABLE weft_activities (
  job text COLLATE "C" NOT NULL,
  activity text COLLATE "C" NOT NULL,
  dimension text COLLATE "C" NOT NULL DEFAULT '',
  status text NOT NULL,
  input json NOT NULL DEFAULT 'null',
  output json NOT NULL DEFAULT 'null',
  error json,
  attempt integer NOT NULL DEFAULT 0,
  updated_at bigint NOT NULL,
  PRIMARY KEY (job, activity, dimension)
);

CREATE SEQUENCE weft_message_ids;
CREATE TABLE weft_messages (
  id bigint PRIMARY KEY DEFAULT nextval('weft_message_ids'),
  stream text COLLATE "C" NOT NULL,
  job text COLLATE "C",
  payload json NOT NULL,
  deliveries integer NOT NULL DEFAULT 0,
  consumer text,
  lease_until bigint,
  available_at bigint NOT NULL,
  created_at bigint NOT NULL
);
ALTER SEQUENCE weft_message_ids OWNED BY weft_messages.id;
-- The claim path: one range per stream, oldest claimable first.
CREATE INDEX weft_messages_claim ON weft_messages (stream, available_at, id);
-- Messages delivered at least once (held, or back after a lease): dead-lettering and reclaim.
CREATE INDEX weft_messages_delivered ON weft_messages (stream, deliveries) WHERE deliveries > 0;

CREATE TABLE weft_dead_letters (
  id bigint PRIMARY KEY,
  stream text COLLATE "C" NOT NULL,
  job text COLLATE "C",
  payload json NOT NULL,
  deliveries integer NOT NULL,
  reason text NOT NULL,
  created_at bigint NOT NULL,
  dead_at bigint NOT NULL
);
CREATE INDEX weft_dead_letters_stream ON weft_dead_letters (stream, id);

CREATE TABLE weft_timers (
  key text COLLATE "C" PRIMARY KEY,
  at bigint NOT NULL,
  stream text COLLATE "C" NOT NULL,
  job text COLLATE "C",
  payload json NOT NULL,
  available_at bigint
);
CREATE INDEX weft_timers_at ON weft_timers (at, key);

CREATE TABLE weft_waiters (
  key text COLLATE "C" PRIMARY KEY,
  job text COLLATE "C",
  stream text COLLATE "C" NOT NULL,
  message_job text COLLATE "C",
  payload json NOT NULL,
  available_at bigint,
  created_at bigint NOT NULL
);

CREATE TABLE weft_signal_buffer (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key text COLLATE "C" NOT NULL,
  data json NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX weft_signal_buffer_key ON weft_signal_buffer (key, id);
CREATE INDEX weft_signal_buffer_expiry ON weft_signal_buffer (expires_at);
`,
};
