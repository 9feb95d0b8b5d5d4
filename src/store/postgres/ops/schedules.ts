/**
 * PostgreSQL schedules: one row per cron schedule, written whole (`putSchedule`); a
 * worker firing one holds its row (`lockSchedule`, FOR UPDATE) until it commits, so two
 * workers never handle the same tick.
 */
import type { OverlapPolicy, ScheduleRecord } from '../../records.js';
import { type Db, sql } from './context.js';

interface ScheduleRow {
  name: string;
  workflow: string;
  cron: string;
  timezone: string;
  input: ScheduleRecord['input'];
  overlap: string;
  catchup_ms: string | number;
  paused: boolean;
  next_at: string | number | null;
  buffered_at: string | number | null;
  last_tick_at: string | number | null;
  last_job: string | null;
  last_error: string | null;
  runs: string | number;
  skipped: string | number;
  source: string;
  created_at: string | number;
  updated_at: string | number;
}

const orNull = (value: string | number | null) => (value === null ? null : Number(value));

function toSchedule(row: ScheduleRow): ScheduleRecord {
  return {
    name: row.name,
    workflow: row.workflow,
    cron: row.cron,
    timezone: row.timezone,
    input: row.input,
    overlap: row.overlap as OverlapPolicy,
    catchupWindowMs: Number(row.catchup_ms),
    paused: row.paused,
    nextAt: orNull(row.next_at),
    bufferedAt: orNull(row.buffered_at),
    lastTickAt: orNull(row.last_tick_at),
    lastJob: row.last_job,
    lastError: row.last_error,
    runs: Number(row.runs),
    skipped: Number(row.skipped),
    source: row.source,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const PUT = sql(
  'schedule_put',
  `INSERT INTO weft_schedules (name, workflow, cron, timezone, input, overlap, catchup_ms,
     paused, next_at, buffered_at, last_tick_at, last_job, last_error, runs, skipped, source,
     created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
   ON CONFLICT (name) DO UPDATE SET workflow = EXCLUDED.workflow, cron = EXCLUDED.cron,
     timezone = EXCLUDED.timezone, input = EXCLUDED.input, overlap = EXCLUDED.overlap,
     catchup_ms = EXCLUDED.catchup_ms, paused = EXCLUDED.paused, next_at = EXCLUDED.next_at,
     buffered_at = EXCLUDED.buffered_at, last_tick_at = EXCLUDED.last_tick_at,
     last_job = EXCLUDED.last_job, last_error = EXCLUDED.last_error, runs = EXCLUDED.runs,
     skipped = EXCLUDED.skipped, source = EXCLUDED.source, created_at = EXCLUDED.created_at,
     updated_at = EXCLUDED.updated_at`,
);
const GET = sql('schedule_get', 'SELECT * FROM weft_schedules WHERE name = $1');
const LOCK = sql('schedule_lock', 'SELECT * FROM weft_schedules WHERE name = $1 FOR UPDATE');
const LIST = sql('schedule_list', 'SELECT * FROM weft_schedules ORDER BY name');
const REMOVE = sql('schedule_remove', 'DELETE FROM weft_schedules WHERE name = $1');
const DUE = sql(
  'schedule_due',
  `SELECT name FROM weft_schedules
   WHERE NOT paused AND (next_at <= $1 OR buffered_at IS NOT NULL) ORDER BY name LIMIT $2`,
);
const NEXT = sql('schedule_next', 'SELECT min(next_at) AS at FROM weft_schedules WHERE NOT paused');

/** Schedule operations. */
export const schedules = {
  async putSchedule(db: Db, s: ScheduleRecord): Promise<void> {
    await db.count(PUT, [
      s.name,
      s.workflow,
      s.cron,
      s.timezone,
      JSON.stringify(s.input ?? null),
      s.overlap,
      s.catchupWindowMs,
      s.paused,
      s.nextAt,
      s.bufferedAt,
      s.lastTickAt,
      s.lastJob,
      s.lastError,
      s.runs,
      s.skipped,
      s.source,
      s.createdAt,
      s.updatedAt,
    ]);
  },

  async getSchedule(db: Db, name: string): Promise<ScheduleRecord | undefined> {
    const [row] = await db.rows<ScheduleRow>(GET, [name]);
    return row ? toSchedule(row) : undefined;
  },

  async lockSchedule(db: Db, name: string): Promise<ScheduleRecord | undefined> {
    const [row] = await db.rows<ScheduleRow>(LOCK, [name]);
    return row ? toSchedule(row) : undefined;
  },

  async listSchedules(db: Db): Promise<ScheduleRecord[]> {
    return (await db.rows<ScheduleRow>(LIST, [])).map(toSchedule);
  },

  async deleteSchedule(db: Db, name: string): Promise<boolean> {
    return (await db.count(REMOVE, [name])) === 1;
  },

  async dueSchedules(db: Db, now: number, limit: number): Promise<string[]> {
    return (await db.rows<{ name: string }>(DUE, [now, limit])).map((r) => r.name);
  },

  async nextScheduleAt(db: Db): Promise<number | undefined> {
    const [row] = await db.rows<{ at: string | number | null }>(NEXT, []);
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  },
};
