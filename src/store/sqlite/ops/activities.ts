/**
 * SQLite activity data: one row per (job, activity, dimension), upserted by the rule of
 * {@link ../../activity-write.ts}.
 */
import type { ActivityState } from '../../../core/states.js';
import { activityRow } from '../../activity-write.js';
import type { ActivityRecord, ActivityWrite, ErrorRecord } from '../../records.js';
import { fromJson, fromJsonOrNull, type OpsContext, type Statement, toJson } from './context.js';

interface ActivityRow {
  job: string;
  activity: string;
  dimension: string;
  status: string;
  input: string;
  output: string;
  error: string | null;
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
    input: fromJson(row.input),
    output: fromJson(row.output),
    error: fromJsonOrNull<ErrorRecord>(row.error),
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}

/** Activity operations on one connection. */
export class SqliteActivities {
  private readonly upsert: Statement;
  private readonly selectOne: Statement;
  private readonly selectJob: Statement;
  private readonly selectJobDimensions: Statement;
  private readonly selectNewest: Statement;
  private readonly selectNewestOf: Statement;

  constructor(private readonly ctx: OpsContext) {
    const { db } = ctx;
    this.upsert = db.prepare(`INSERT INTO weft_activities
        (job, activity, dimension, status, input, output, error, attempt, started_at,
         finished_at, updated_at)
      VALUES (@job, @activity, @dimension, @status, @input, @output, @error, @attempt,
        @started_at, @finished_at, @now)
      ON CONFLICT (job, activity, dimension) DO UPDATE SET
        status = CASE WHEN @has_status THEN excluded.status ELSE status END,
        input = CASE WHEN @has_input THEN excluded.input ELSE input END,
        output = CASE WHEN @has_output THEN excluded.output ELSE output END,
        error = CASE WHEN @has_error THEN excluded.error ELSE error END,
        attempt = CASE WHEN @has_attempt THEN excluded.attempt ELSE attempt END,
        started_at = CASE WHEN @has_started_at THEN excluded.started_at ELSE started_at END,
        finished_at = CASE WHEN @has_finished_at THEN excluded.finished_at ELSE finished_at END,
        updated_at = excluded.updated_at`);
    this.selectOne = db.prepare(
      'SELECT * FROM weft_activities WHERE job = ? AND activity = ? AND dimension = ?',
    );
    this.selectJob = db.prepare(
      'SELECT * FROM weft_activities WHERE job = ? ORDER BY activity, dimension',
    );
    // The threads drive the search, one lookup of the thread index each, whatever the
    // planner would guess without statistics.
    this.selectJobDimensions = db.prepare(
      `SELECT a.* FROM json_each(?) d
         CROSS JOIN weft_activities a INDEXED BY weft_activities_thread
         WHERE a.job = ? AND a.dimension = d.value`,
    );
    this.selectNewest = db.prepare(
      `SELECT a.* FROM weft_activities a
         JOIN (SELECT activity, max(updated_at) AS newest FROM weft_activities
               WHERE job = ? AND updated_at >= 0 GROUP BY activity) n
           ON a.activity = n.activity AND a.updated_at = n.newest
         WHERE a.job = ?`,
    );
    this.selectNewestOf = db.prepare(
      `SELECT * FROM weft_activities
         WHERE job = @job AND activity = @activity AND updated_at =
           (SELECT max(updated_at) FROM weft_activities
             WHERE job = @job AND activity = @activity AND updated_at >= 0)
           AND updated_at >= 0`,
    );
  }

  /** Upserts an activity's data, stamped `now` (one call's rows share one time). */
  putActivity(write: ActivityWrite, now = this.ctx.clock.now()): void {
    const row = activityRow(write);
    const flag = (set: boolean) => (set ? 1 : 0);
    this.upsert.run({
      job: row.job,
      activity: row.activity,
      dimension: row.dimension,
      status: row.status,
      input: toJson(row.input),
      output: toJson(row.output),
      error: row.error ? JSON.stringify(row.error) : null,
      attempt: row.attempt,
      started_at: row.startedAt,
      finished_at: row.finishedAt,
      now,
      has_status: flag(row.sets.status),
      has_input: flag(row.sets.input),
      has_output: flag(row.sets.output),
      has_error: flag(row.sets.error),
      has_attempt: flag(row.sets.attempt),
      has_started_at: flag(row.sets.startedAt),
      has_finished_at: flag(row.sets.finishedAt),
    });
  }

  /** Upserts several activities, all stamped with one time. */
  putActivities(writes: ActivityWrite[]): void {
    const now = this.ctx.clock.now();
    for (const write of writes) this.putActivity(write, now);
  }

  /** Reads one activity. */
  getActivity(job: string, activity: string, dimension = ''): ActivityRecord | undefined {
    const row = this.selectOne.get(job, activity, dimension) as ActivityRow | undefined;
    return row ? toActivity(row) : undefined;
  }

  /** Every activity of a job, by activity then dimension. */
  listActivities(job: string): ActivityRecord[] {
    return (this.selectJob.all(job) as ActivityRow[]).map(toActivity);
  }

  /** Every activity of a job in these dimensions. */
  activitiesInDimensions(job: string, dimensions: string[]): ActivityRecord[] {
    const dims = JSON.stringify([...new Set(dimensions)]);
    return (this.selectJobDimensions.all(dims, job) as ActivityRow[]).map(toActivity);
  }

  /** Each activity's newest record(s) of a job (of `activities`, when given). */
  newestActivities(job: string, activities?: string[]): ActivityRecord[] {
    if (!activities) return (this.selectNewest.all(job, job) as ActivityRow[]).map(toActivity);
    return [...new Set(activities)].flatMap((activity) =>
      (this.selectNewestOf.all({ job, activity }) as ActivityRow[]).map(toActivity),
    );
  }
}
