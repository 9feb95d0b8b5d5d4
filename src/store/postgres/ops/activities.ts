/**
 * PostgreSQL activity data: one row per (job, activity, dimension), upserted in one
 * statement by the rule of {@link ../../activity-write.ts}.
 */
import type { ActivityState } from '../../../core/states.js';
import { activityRow } from '../../activity-write.js';
import type { ActivityRecord, ActivityWrite, ErrorRecord, Json } from '../../records.js';
import type { ActivityKey } from '../../store.js';
import { type Db, sql, toJson } from './context.js';

interface ActivityRow {
  job: string;
  activity: string;
  dimension: string;
  status: string;
  input: Json;
  output: Json;
  error: ErrorRecord | null;
  attempt: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

function toActivity(row: ActivityRow): ActivityRecord {
  return {
    job: row.job,
    activity: row.activity,
    dimension: row.dimension,
    status: row.status as ActivityState,
    input: row.input,
    output: row.output,
    error: row.error,
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}

const COLUMNS =
  'job, activity, dimension, status, input, output, error, attempt, started_at, finished_at, updated_at';

const UPSERT = sql(
  'activity_put',
  `INSERT INTO weft_activities AS a
     (job, activity, dimension, status, input, output, error, attempt, updated_at,
      started_at, finished_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $15, $16)
   ON CONFLICT (job, activity, dimension) DO UPDATE SET
     status = CASE WHEN $10 THEN EXCLUDED.status ELSE a.status END,
     input = CASE WHEN $11 THEN EXCLUDED.input ELSE a.input END,
     output = CASE WHEN $12 THEN EXCLUDED.output ELSE a.output END,
     error = CASE WHEN $13 THEN EXCLUDED.error ELSE a.error END,
     attempt = CASE WHEN $14 THEN EXCLUDED.attempt ELSE a.attempt END,
     started_at = CASE WHEN $17 THEN EXCLUDED.started_at ELSE a.started_at END,
     finished_at = CASE WHEN $18 THEN EXCLUDED.finished_at ELSE a.finished_at END,
     updated_at = EXCLUDED.updated_at`,
);
const SELECT_ONE = sql(
  'activity_get',
  `SELECT ${COLUMNS} FROM weft_activities WHERE job = $1 AND activity = $2 AND dimension = $3`,
);
const SELECT_JOB = sql(
  'activity_list',
  `SELECT ${COLUMNS} FROM weft_activities WHERE job = $1 ORDER BY activity, dimension`,
);

const SELECT_JOBS = sql(
  'activity_list_jobs',
  `SELECT ${COLUMNS} FROM weft_activities WHERE job = ANY($1::text[])`,
);

// Its own statement, not `$2 IS NULL OR dimension = ANY($2)`: a cached generic plan of
// that form cannot use the (job, dimension) index and reads every record of the job.
const SELECT_JOBS_THREADS = sql(
  'activity_list_jobs_threads',
  `SELECT ${COLUMNS} FROM weft_activities
   WHERE job = ANY($1::text[]) AND dimension = ANY($2::text[])`,
);

const SELECT_NEWEST = sql(
  'activity_newest',
  `SELECT ${COLUMNS.split(', ')
    .map((c) => `a.${c}`)
    .join(', ')} FROM weft_activities a
   JOIN (SELECT activity, max(updated_at) AS newest FROM weft_activities
         WHERE job = $1 AND updated_at >= 0 GROUP BY activity) n
     ON a.activity = n.activity AND a.updated_at = n.newest
   WHERE a.job = $1 AND a.updated_at >= 0`,
);

// Per named activity, its greatest updated_at and then the records holding it, both by the
// newest index; OFFSET 0 keeps each lookup a subquery run per name (pulled up into a
// join, it was planned as a scan of every record of the job).
const SELECT_NEWEST_OF = sql(
  'activity_newest_of',
  `SELECT a.* FROM unnest($2::text[]) AS w(activity)
   CROSS JOIN LATERAL (
     SELECT ${COLUMNS} FROM weft_activities
     WHERE job = $1 AND activity = w.activity AND updated_at >= 0 AND updated_at =
       (SELECT max(updated_at) FROM weft_activities
        WHERE job = $1 AND activity = w.activity AND updated_at >= 0)
     OFFSET 0) a`,
);

// Set-based forms: parallel arrays, numbered so results come back in order.
const SELECT_MANY = sql(
  'activity_get_many',
  `SELECT u.n, a.job, a.activity, a.dimension, a.status, a.input, a.output, a.error,
          a.attempt, a.started_at, a.finished_at, a.updated_at
   FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(job, activity, dimension, n)
   JOIN weft_activities a USING (job, activity, dimension)`,
);
// One statement: rows that exist are updated field by field (a flag per field says whether
// the write sets it), the others inserted with the defaults. Callers hold the job's lock,
// so no other transaction inserts the same row in between.
const UPSERT_MANY = sql(
  'activity_put_many',
  `WITH u AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
       $6::text[], $7::text[], $8::int[], $9::bigint[], $10::bigint[], $11::bool[],
       $12::bool[], $13::bool[], $14::bool[], $15::bool[], $16::bool[], $17::bool[])
       AS u(job, activity, dimension, status, input, output, error, attempt, started_at,
            finished_at, has_status, has_input, has_output, has_error, has_attempt,
            has_started, has_finished)
   ), updated AS (
     UPDATE weft_activities a SET
       status = CASE WHEN u.has_status THEN u.status ELSE a.status END,
       input = CASE WHEN u.has_input THEN u.input::json ELSE a.input END,
       output = CASE WHEN u.has_output THEN u.output::json ELSE a.output END,
       error = CASE WHEN u.has_error THEN u.error::json ELSE a.error END,
       attempt = CASE WHEN u.has_attempt THEN u.attempt ELSE a.attempt END,
       started_at = CASE WHEN u.has_started THEN u.started_at ELSE a.started_at END,
       finished_at = CASE WHEN u.has_finished THEN u.finished_at ELSE a.finished_at END,
       updated_at = $18
     FROM u
     WHERE (a.job, a.activity, a.dimension) = (u.job, u.activity, u.dimension)
     RETURNING a.job, a.activity, a.dimension
   )
   INSERT INTO weft_activities
     (job, activity, dimension, status, input, output, error, attempt, started_at,
      finished_at, updated_at)
   SELECT u.job, u.activity, u.dimension, u.status, u.input::json, u.output::json,
          u.error::json, u.attempt, u.started_at, u.finished_at, $18
   FROM u
   WHERE NOT EXISTS (
     SELECT 1 FROM updated d
     WHERE (d.job, d.activity, d.dimension) = (u.job, u.activity, u.dimension))
   ON CONFLICT (job, activity, dimension) DO NOTHING`,
);

/** Activity operations. */
export const activities = {
  /** Upserts an activity's data. */
  async putActivity(db: Db, write: ActivityWrite): Promise<void> {
    const row = activityRow(write);
    await db.count(UPSERT, [
      row.job,
      row.activity,
      row.dimension,
      row.status,
      toJson(row.input),
      toJson(row.output),
      row.error ? JSON.stringify(row.error) : null,
      row.attempt,
      db.clock.now(),
      row.sets.status,
      row.sets.input,
      row.sets.output,
      row.sets.error,
      row.sets.attempt,
      row.startedAt,
      row.finishedAt,
      row.sets.startedAt,
      row.sets.finishedAt,
    ]);
  },

  /** Reads one activity. */
  async getActivity(
    db: Db,
    job: string,
    activity: string,
    dimension = '',
  ): Promise<ActivityRecord | undefined> {
    const [row] = await db.rows<ActivityRow>(SELECT_ONE, [job, activity, dimension]);
    return row ? toActivity(row) : undefined;
  },

  /** Every activity of these jobs (of these dimensions, when given), in one statement. */
  async activitiesOfJobs(db: Db, jobs: string[], dimensions?: string[]): Promise<ActivityRecord[]> {
    if (jobs.length === 0) return [];
    const ids = [...new Set(jobs)];
    const rows = dimensions
      ? await db.rows<ActivityRow>(SELECT_JOBS_THREADS, [ids, [...new Set(dimensions)]])
      : await db.rows<ActivityRow>(SELECT_JOBS, [ids]);
    return rows.map(toActivity);
  },

  /** Each activity's newest record(s) of a job (of `names`, when given), in one statement. */
  async newestActivities(db: Db, job: string, names?: string[]): Promise<ActivityRecord[]> {
    const rows = names
      ? await db.rows<ActivityRow>(SELECT_NEWEST_OF, [job, [...new Set(names)]])
      : await db.rows<ActivityRow>(SELECT_NEWEST, [job]);
    return rows.map(toActivity);
  },

  /** Reads several activities in one statement, in order. */
  async getActivities(db: Db, keys: ActivityKey[]): Promise<(ActivityRecord | undefined)[]> {
    if (keys.length === 0) return [];
    const rows = await db.rows<ActivityRow & { n: string }>(SELECT_MANY, [
      keys.map((k) => k.job),
      keys.map((k) => k.activity),
      keys.map((k) => k.dimension ?? ''),
    ]);
    const out: (ActivityRecord | undefined)[] = new Array(keys.length).fill(undefined);
    for (const row of rows) out[Number(row.n) - 1] = toActivity(row);
    return out;
  },

  /** Upserts several activities in one statement (each key once). */
  async putActivities(db: Db, writes: ActivityWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const rows = writes.map(activityRow);
    const column = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
    await db.count(UPSERT_MANY, [
      column((r) => r.job),
      column((r) => r.activity),
      column((r) => r.dimension),
      column((r) => r.status),
      column((r) => toJson(r.input)),
      column((r) => toJson(r.output)),
      column((r) => (r.error ? JSON.stringify(r.error) : null)),
      column((r) => r.attempt),
      column((r) => r.startedAt),
      column((r) => r.finishedAt),
      column((r) => r.sets.status),
      column((r) => r.sets.input),
      column((r) => r.sets.output),
      column((r) => r.sets.error),
      column((r) => r.sets.attempt),
      column((r) => r.sets.startedAt),
      column((r) => r.sets.finishedAt),
      db.clock.now(),
    ]);
  },

  /** Every activity of a job, by activity then dimension. */
  async listActivities(db: Db, job: string): Promise<ActivityRecord[]> {
    return (await db.rows<ActivityRow>(SELECT_JOB, [job])).map(toActivity);
  },
};
