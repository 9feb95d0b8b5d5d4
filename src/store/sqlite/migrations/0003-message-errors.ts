/**
 * SQLite migration 0003: the last error of a message that failed and was given back
 * (JSON, null until then), kept with it when it is dead-lettered, so a dead letter says
 * why it kept failing.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `last_error` to messages and dead letters. */
export const messageErrors: Migration = {
  version: 3,
  name: 'message-errors',
  sql: `
ALTER TABLE weft_messages ADD COLUMN last_error TEXT;
ALTER TABLE weft_dead_letters ADD COLUMN last_error TEXT;
`,
};
