/**
 * PostgreSQL migration 0012: idempotency keys. A start with a key claims it for its
 * workflow until it expires; a second start with the key finds the job that holds it.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_idempotency`. */
export const idempotency: Migration = {
  version: 12,
  name: 'idempotency',
  sql: `
CREATE TABLE weft_idempotency (
  workflow text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  job text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (workflow, key)
);
CREATE INDEX weft_idempotency_expiry ON weft_idempotency (expires_at);
`,
};
