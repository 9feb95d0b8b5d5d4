/**
 * PostgreSQL job history: a call's rows go in with one `INSERT … SELECT FROM unnest`,
 * each taking its job's highest `seq` so far plus its rank among the call's rows of that
 * job, so several rows of one job in one statement number consecutively. In a
 * transaction the store takes the jobs' history locks first (`lockHistories`), so two
 * writers of one job never overlap; the unique (job, seq) index backs this.
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

// One transaction at a time writes a job's lines: each number is the job's highest so far
// plus one, read by the INSERT's own snapshot, so two writers of one job must not overlap.
// Locks by a hash of the job id, in one order, taken just before the INSERT (PostgreSQL
// 9.6+ evaluates the volatile lock calls after the sort).
const LOCK_JOBS = sql(
  'history_lock_jobs',
  `SELECT pg_advisory_xact_lock(k)
   FROM (SELECT DISTINCT hashtextextended(j, 1160) AS k FROM unnest($1::text[]) AS j) AS h
   ORDER BY k`,
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

  /**
   * Takes the history locks of the jobs of `rows` until the transaction ends: a writer
   * that does not hold its jobs' row locks (the attempt starts of a claim) cannot then take
   * the same numbers as another.
   */
  async lockHistories(db: Db, rows: HistoryValues[]): Promise<void> {
    if (rows.length === 0) return;
    await db.rows(LOCK_JOBS, [[...new Set(rows.map((r) => r.job))]]);
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
