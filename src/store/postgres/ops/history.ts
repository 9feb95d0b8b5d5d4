/**
 * PostgreSQL job history: a call's rows go in with one `INSERT … SELECT FROM unnest`,
 * each taking its job's highest `seq` so far plus its rank among the call's rows of that
 * job, so several rows of one job in one statement number consecutively. Callers hold
 * the jobs' locks; the unique (job, seq) index turns a writer that did not into an error
 * rather than a duplicate number.
 */
import { DEFAULT_HISTORY_LIMIT, type HistoryRow, historyEntry } from '../../history-row.js';
import type { HistoryEntry, HistoryQuery, Json, NewHistoryEntry } from '../../records.js';
import { type Db, ms, sql, toJson } from './context.js';

type Row = HistoryRow<Json>;

const toEntry = (row: Row): HistoryEntry => historyEntry(row, row.change);

const INSERT_MANY = sql(
  'history_append',
  `INSERT INTO weft_history (job, seq, kind, activity, dimension, change, at, worker)
   SELECT u.job,
          COALESCE((SELECT max(h.seq) FROM weft_history h WHERE h.job = u.job), 0)
            + row_number() OVER (PARTITION BY u.job ORDER BY u.n),
          u.kind, u.activity, u.dimension, u.change::json, u.at, u.worker
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
               $7::text[])
     WITH ORDINALITY AS u(job, kind, activity, dimension, change, at, worker, n)
   ORDER BY u.n`,
);

const SELECT_JOB = sql(
  'history_of_job',
  `SELECT id, job, seq, kind, activity, dimension, change, at, worker
   FROM weft_history WHERE job = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
);

/** A history line as the INSERT takes it: its change already JSON text, its time set. */
export interface HistoryValues {
  job: string;
  kind: string;
  activity: string | null;
  dimension: string;
  change: string;
  at: number;
  worker: string | null;
}

/** The values of a line written at `now` (a change that is not JSON throws here). */
export function historyValues(entry: NewHistoryEntry, now: number): HistoryValues {
  return {
    job: entry.job,
    kind: entry.kind,
    activity: entry.activity ?? null,
    dimension: entry.dimension ?? '',
    change: toJson(entry.change),
    at: ms(entry.at ?? now),
    worker: entry.worker ?? null,
  };
}

/** History operations. */
export const history = {
  /** Appends lines, in order, in one statement. */
  async appendHistory(db: Db, entries: NewHistoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const now = db.clock.now();
    await history.insertHistory(
      db,
      entries.map((e) => historyValues(e, now)),
    );
  },

  /** Inserts lines made by {@link historyValues}, in order, in one statement. */
  async insertHistory(db: Db, rows: HistoryValues[]): Promise<void> {
    if (rows.length === 0) return;
    await db.count(INSERT_MANY, [
      rows.map((r) => r.job),
      rows.map((r) => r.kind),
      rows.map((r) => r.activity),
      rows.map((r) => r.dimension),
      rows.map((r) => r.change),
      rows.map((r) => r.at),
      rows.map((r) => r.worker),
    ]);
  },

  /** A job's lines by seq. */
  async historyOfJob(db: Db, job: string, query: HistoryQuery = {}): Promise<HistoryEntry[]> {
    const rows = await db.rows<Row>(SELECT_JOB, [
      job,
      query.afterSeq ?? 0,
      query.limit ?? DEFAULT_HISTORY_LIMIT,
    ]);
    return rows.map(toEntry);
  },
};
