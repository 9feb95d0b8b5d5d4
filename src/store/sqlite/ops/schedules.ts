/**
 * SQLite schedules: one row per cron schedule, written whole (`putSchedule`) by whoever
 * holds the write lock, and the due ones found by a scan of a small table.
 */
import type { OverlapPolicy, ScheduleRecord } from '../../records.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';

interface ScheduleRow {
  name: string;
  workflow: string;
  cron: string;
  timezone: string;
  input: string;
  overlap: string;
  catchup_ms: number;
  paused: number;
  next_at: number | null;
  buffered_at: number | null;
  last_tick_at: number | null;
  last_job: string | null;
  last_error: string | null;
  runs: number;
  skipped: number;
  source: string;
  created_at: number;
  updated_at: number;
}

function toSchedule(row: ScheduleRow): ScheduleRecord {
  return {
    name: row.name,
    workflow: row.workflow,
    cron: row.cron,
    timezone: row.timezone,
    input: fromJson(row.input),
    overlap: row.overlap as OverlapPolicy,
    catchupWindowMs: row.catchup_ms,
    paused: row.paused === 1,
    nextAt: row.next_at,
    bufferedAt: row.buffered_at,
    lastTickAt: row.last_tick_at,
    lastJob: row.last_job,
    lastError: row.last_error,
    runs: row.runs,
    skipped: row.skipped,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Schedule operations on one connection. */
export class SqliteSchedules {
  private readonly s: Record<'put' | 'get' | 'all' | 'remove' | 'due' | 'next', Statement>;

  constructor(ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      put: p(`INSERT OR REPLACE INTO weft_schedules (name, workflow, cron, timezone, input,
          overlap, catchup_ms, paused, next_at, buffered_at, last_tick_at, last_job, last_error,
          runs, skipped, source, created_at, updated_at)
        VALUES (@name, @workflow, @cron, @timezone, @input, @overlap, @catchup_ms, @paused,
          @next_at, @buffered_at, @last_tick_at, @last_job, @last_error, @runs, @skipped,
          @source, @created_at, @updated_at)`),
      get: p('SELECT * FROM weft_schedules WHERE name = ?'),
      all: p('SELECT * FROM weft_schedules ORDER BY name'),
      remove: p('DELETE FROM weft_schedules WHERE name = ?'),
      due: p(`SELECT name FROM weft_schedules
        WHERE paused = 0 AND (next_at <= ? OR buffered_at IS NOT NULL) ORDER BY name LIMIT ?`),
      next: p('SELECT min(next_at) FROM weft_schedules WHERE paused = 0').pluck(),
    };
  }

  putSchedule(s: ScheduleRecord): void {
    this.s.put.run({
      name: s.name,
      workflow: s.workflow,
      cron: s.cron,
      timezone: s.timezone,
      input: toJson(s.input),
      overlap: s.overlap,
      catchup_ms: s.catchupWindowMs,
      paused: s.paused ? 1 : 0,
      next_at: s.nextAt,
      buffered_at: s.bufferedAt,
      last_tick_at: s.lastTickAt,
      last_job: s.lastJob,
      last_error: s.lastError,
      runs: s.runs,
      skipped: s.skipped,
      source: s.source,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    });
  }

  getSchedule(name: string): ScheduleRecord | undefined {
    const row = this.s.get.get(name) as ScheduleRow | undefined;
    return row ? toSchedule(row) : undefined;
  }

  listSchedules(): ScheduleRecord[] {
    return (this.s.all.all() as ScheduleRow[]).map(toSchedule);
  }

  deleteSchedule(name: string): boolean {
    return this.s.remove.run(name).changes === 1;
  }

  dueSchedules(now: number, limit: number): string[] {
    return (this.s.due.all(now, limit) as { name: string }[]).map((r) => r.name);
  }

  nextScheduleAt(): number | undefined {
    return (this.s.next.get() as number | null) ?? undefined;
  }
}
