/**
 * PostgreSQL migration 0013: debounce windows. The starts of a workflow with one debounce
 * key within a window get one job; the window's row says which, and until when.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_debounces`. */
export const debounce: Migration = {
  version: 13,
  name: 'debounce',
  sql: `
CREATE TABLE weft_debounces (
  workflow text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  job text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  first_at bigint NOT NULL,
  until_at bigint NOT NULL,
  starts integer NOT NULL,
  held jsonb NOT NULL,
  PRIMARY KEY (workflow, key)
);
CREATE INDEX weft_debounces_until ON weft_debounces (until_at);
`,
};
