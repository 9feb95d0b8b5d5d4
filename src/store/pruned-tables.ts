/**
 * Every table that holds rows of a job, and the columns that name it: the one list both
 * backends prune from (`pruneJobs`), so a table added later is pruned by adding it here.
 * Jobs come last: a job's rows go before the job does.
 */

/** A table a job's rows live in. */
export interface PrunedTable {
  /** Its name in a prune's counts (the table's name without `weft_`). */
  name: string;
  table: string;
  /** The columns that hold a job id; a row goes when any of them names a pruned job. */
  columns: readonly string[];
}

/** The tables, in the order a prune empties them. */
export const PRUNED_TABLES: readonly PrunedTable[] = [
  { name: 'activities', table: 'weft_activities', columns: ['job'] },
  { name: 'counters', table: 'weft_counters', columns: ['job'] },
  { name: 'history', table: 'weft_history', columns: ['job'] },
  { name: 'journal', table: 'weft_journal', columns: ['job'] },
  { name: 'messages', table: 'weft_messages', columns: ['job'] },
  { name: 'dead_letters', table: 'weft_dead_letters', columns: ['job'] },
  { name: 'timers', table: 'weft_timers', columns: ['job'] },
  { name: 'waiters', table: 'weft_waiters', columns: ['job', 'message_job'] },
  { name: 'queue_items', table: 'weft_queue_items', columns: ['job'] },
  { name: 'idempotency', table: 'weft_idempotency', columns: ['job'] },
  { name: 'debounces', table: 'weft_debounces', columns: ['job'] },
  { name: 'jobs', table: 'weft_jobs', columns: ['id'] },
];

/** Top jobs looked at by one `pruneJobs` call when the caller gives no limit. */
export const DEFAULT_PRUNE_LIMIT = 100;

/** The most top jobs one `pruneJobs` call looks at. */
export const MAX_PRUNE_LIMIT = 10_000;
