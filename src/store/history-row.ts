/**
 * A `weft_history` row as both backends read it, and the entry it becomes. The backends
 * differ only in how `change` comes back (JSON text on SQLite, parsed on PostgreSQL).
 */
import type { HistoryEntry, Json } from './records.js';

/** How many lines a history read returns when the caller gives no limit. */
export const DEFAULT_HISTORY_LIMIT = 1000;

/** A history row; `C` is how the backend returns the `change` column. */
export interface HistoryRow<C> {
  id: number;
  job: string;
  seq: number;
  kind: string;
  activity: string | null;
  dimension: string;
  change: C;
  at: number;
  worker: string | null;
}

/** The entry of a row whose `change` the backend has decoded. */
export function historyEntry<C>(row: HistoryRow<C>, change: Json): HistoryEntry {
  return {
    id: String(row.id),
    job: row.job,
    seq: row.seq,
    kind: row.kind,
    activity: row.activity,
    dimension: row.dimension,
    change,
    at: row.at,
    worker: row.worker,
  };
}
