/**
 * PostgreSQL migration 0008: the workers that run now, each with what it serves — task
 * names, engine streams, code-first workflows — and its last heartbeat, so `weft status`
 * and the workers themselves can say when work waits on something no live worker serves.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_workers`. */
export const workers: Migration = {
  version: 8,
  name: 'workers',
  sql: `
CREATE TABLE weft_workers (
  id text COLLATE "C" PRIMARY KEY,
  tasks json NOT NULL,
  streams json NOT NULL,
  workflows json NOT NULL,
  started_at bigint NOT NULL,
  heartbeat_at bigint NOT NULL
);
CREATE INDEX weft_workers_heartbeat ON weft_workers (heartbeat_at);
`,
};
