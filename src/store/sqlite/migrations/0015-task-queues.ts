/**
 * SQLite migration 0015: a task attempt claimed through a queue keeps the queue's name
 * and its key on its message, so the attempts a queue holds (under a live lease) are
 * counted across every task that names it, per key.
 */
import type { Migration } from '../../migration-plan.js';

/** Adds `queue` and `queue_key` to `weft_messages`, indexed for the held count. */
export const taskQueues: Migration = {
  version: 15,
  name: 'task-queues',
  sql: `
ALTER TABLE weft_messages ADD COLUMN queue TEXT;
ALTER TABLE weft_messages ADD COLUMN queue_key TEXT;
CREATE INDEX weft_messages_queue ON weft_messages (queue, available_at) WHERE queue IS NOT NULL;
`,
};
