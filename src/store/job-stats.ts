/**
 * The SQL-independent half of the store's monitoring reads: the `WHERE` of a job count
 * (a {@link JobFilter}'s workflow, parent and time bounds) and how rows of per-stream
 * counts become {@link StreamStat}s. The backends add the SQL.
 */
import type { FlowState } from '../core/states.js';
import type { JobCounts, JobFilter, StreamStat } from './records.js';

/** One condition of a job count: a column, an operator and its value. */
export interface CountCondition {
  column: 'workflow' | 'parent_id' | 'created_at';
  op: '=' | '>=' | '<';
  value: string | number;
}

/** The conditions of a job count for `filter` (its states, paging and order ignored). */
export function countConditions(filter: JobFilter = {}): CountCondition[] {
  const out: CountCondition[] = [];
  if (filter.workflow !== undefined) {
    out.push({ column: 'workflow', op: '=', value: filter.workflow });
  }
  if (filter.parentId !== undefined) {
    out.push({ column: 'parent_id', op: '=', value: filter.parentId });
  }
  // Stored times are whole milliseconds: rounding a bound up keeps `>=` and `<` exact.
  if (filter.createdAfter !== undefined) {
    out.push({ column: 'created_at', op: '>=', value: Math.ceil(filter.createdAfter) });
  }
  if (filter.createdBefore !== undefined) {
    out.push({ column: 'created_at', op: '<', value: Math.ceil(filter.createdBefore) });
  }
  return out;
}

/** Rows of `(state, n)` as counts by state. */
export function jobCounts(rows: readonly { state: string; n: number | string }[]): JobCounts {
  const counts: JobCounts = {};
  for (const row of rows) counts[row.state as FlowState] = Number(row.n);
  return counts;
}

/** Per-stream message and dead-letter rows merged into one list, by stream name. */
export function streamStats(
  messages: readonly {
    stream: string;
    n: number | string;
    claimed: number | string | null;
    expired: number | string | null;
  }[],
  dead: readonly { stream: string; n: number | string }[],
): StreamStat[] {
  const byName = new Map<string, StreamStat>();
  const entry = (stream: string) => {
    let stat = byName.get(stream);
    if (!stat) {
      stat = { stream, messages: 0, claimed: 0, expiredLeases: 0, deadLetters: 0 };
      byName.set(stream, stat);
    }
    return stat;
  };
  for (const row of messages) {
    const stat = entry(row.stream);
    stat.messages = Number(row.n);
    stat.claimed = Number(row.claimed ?? 0);
    stat.expiredLeases = Number(row.expired ?? 0);
  }
  for (const row of dead) entry(row.stream).deadLetters = Number(row.n);
  return [...byName.values()].sort((a, b) => (a.stream < b.stream ? -1 : 1));
}
