/**
 * SQLite migration 0012: idempotency keys. A start with a key claims it for its workflow
 * until it expires; a second start with the key finds the job that holds it.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_idempotency`. */
export const idempotency: Migration = {
  version: 12,
  name: 'idempotency',
  sql: `
CREATE TABLE weft_idempotency (
  workflow TEXT NOT NULL,
  key TEXT NOT NULL,
  job TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (workflow, key)
) WITHOUT ROWID;
CREATE INDEX weft_idempotency_expiry ON weft_idempotency (expires_at);
`,
};
