/**
 * SQLite migration 0013: debounce windows. The starts of a workflow with one debounce key
 * within a window get one job; the window's row says which, and until when.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `weft_debounces`. */
export const debounce: Migration = {
  version: 13,
  name: 'debounce',
  sql: `
CREATE TABLE weft_debounces (
  workflow TEXT NOT NULL,
  key TEXT NOT NULL,
  job TEXT NOT NULL,
  mode TEXT NOT NULL,
  first_at INTEGER NOT NULL,
  until_at INTEGER NOT NULL,
  starts INTEGER NOT NULL,
  held TEXT NOT NULL,
  PRIMARY KEY (workflow, key)
) WITHOUT ROWID;
CREATE INDEX weft_debounces_until ON weft_debounces (until_at);
`,
};
