/**
 * PostgreSQL activity data: one row per (job, activity, dimension), upserted in one
 * statement so that fields a write leaves out keep their stored values (defaults: status
 * `PENDING`, input, output and error null, attempt 0, no start or finish time).
 */
import type { ActivityRecord, ActivityWrite, ErrorRecord, Json } from '../../records.js';
import { type Db, has, sql, toJson } from './context.js';

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
    status: row.status,
    input: row.input,
    output: row.output,
    error: row.error,
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}

/** The status of an activity written without one. */
export const DEFAULT_ACTIVITY_STATUS = 'PENDING';

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

/** Activity operations. */
export const activities = {
  /** Upserts an activity's data. */
  async putActivity(db: Db, write: ActivityWrite): Promise<void> {
    await db.count(UPSERT, [
      write.job,
      write.activity,
      write.dimension ?? '',
      write.status ?? DEFAULT_ACTIVITY_STATUS,
      toJson(write.input),
      toJson(write.output),
      write.error ? JSON.stringify(write.error) : null,
      write.attempt ?? 0,
      db.clock.now(),
      has(write, 'status'),
      has(write, 'input'),
      has(write, 'output'),
      has(write, 'error'),
      has(write, 'attempt'),
      write.startedAt ?? null,
      write.finishedAt ?? null,
      has(write, 'startedAt'),
      has(write, 'finishedAt'),
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

  /** Every activity of a job, by activity then dimension. */
  async listActivities(db: Db, job: string): Promise<ActivityRecord[]> {
    return (await db.rows<ActivityRow>(SELECT_JOB, [job])).map(toActivity);
  },
};
