/**
 * A schedule as the CLI and the HTTP API show it, and its JSON form. Kept apart from the
 * schedule operations (schedules.ts) so that a `weft` command that only prints a schedule
 * does not load the engine those bring.
 */
import { isoTime as iso } from '../models/view-time.js';
import type { Json, ScheduleRecord } from '../store/records.js';

/** A schedule as stored, with its next run times. */
export interface ScheduleView extends ScheduleRecord {
  /** The next few ticks (epoch ms, `UPCOMING_RUNS` of them); none while paused. */
  upcoming: number[];
}

/**
 * A schedule as `--json` and the dashboard's API show it: the stored fields, times as ISO
 * strings (as a job's are), and its next runs.
 */
export function scheduleJson(s: ScheduleView): Json {
  return {
    name: s.name,
    workflow: s.workflow,
    cron: s.cron,
    timezone: s.timezone,
    input: s.input,
    overlap: s.overlap,
    catchupWindowMs: s.catchupWindowMs,
    paused: s.paused,
    nextAt: iso(s.nextAt),
    bufferedAt: iso(s.bufferedAt),
    lastTickAt: iso(s.lastTickAt),
    lastJob: s.lastJob,
    lastError: s.lastError,
    runs: s.runs,
    skipped: s.skipped,
    source: s.source,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    upcoming: s.upcoming.map((t) => new Date(t).toISOString()),
  };
}
