/**
 * What one firing of a schedule does, decided in memory: which due ticks start a job,
 * which are skipped (too late for the catch-up window, or by the overlap policy), which
 * one is held back for a running job, and the next tick to wait for. Pure: the caller
 * reads the schedule and whether its last job still runs, and applies the plan.
 */
import type { CronTimes } from '../core/cron.js';
import type { ScheduleRecord } from '../store/records.js';

/** Most ticks one firing handles; a schedule further behind fires again at once. */
export const TICKS_PER_FIRING = 100;

export interface TickPlan {
  /** Ticks that start a job, oldest first. */
  start: number[];
  /** Cancel the running job first (`cancel_other`). */
  cancelRunning: boolean;
  /** The tick held back until the running job ends (`buffer_one`), or null. */
  bufferedAt: number | null;
  /** Ticks handled without a job. */
  skipped: number;
  /** The newest tick handled, or the schedule's as it was. */
  lastTickAt: number | null;
  /** The first tick not handled yet. */
  nextAt: number | null;
}

/**
 * Plans a firing at `now`: the ticks from `schedule.nextAt` to `now`, and the one held
 * back, if any. `running` says whether the job of the schedule's last tick has not ended.
 * Ticks older than `now - catchupWindowMs` are skipped: a worker that comes back after a
 * night away does not start a night of reports.
 */
export function planTicks(
  schedule: Pick<
    ScheduleRecord,
    'nextAt' | 'bufferedAt' | 'lastTickAt' | 'overlap' | 'catchupWindowMs'
  >,
  cron: CronTimes,
  now: number,
  running: boolean,
): TickPlan {
  const { nextAt } = schedule;
  const due =
    nextAt !== null && nextAt <= now ? cron.between(nextAt, now, TICKS_PER_FIRING).ticks : [];
  const last = due.at(-1);
  const next = last === undefined ? nextAt : (cron.next(last) ?? null);
  const onTime = due.filter((t) => t >= now - schedule.catchupWindowMs);
  let skipped = due.length - onTime.length;
  const held = schedule.bufferedAt;
  const candidates = held === null ? onTime : [held, ...onTime];
  const plan: TickPlan = {
    start: [],
    cancelRunning: false,
    bufferedAt: null,
    skipped: 0,
    lastTickAt: last ?? schedule.lastTickAt,
    nextAt: next,
  };
  const newest = candidates.at(-1);
  switch (schedule.overlap) {
    case 'allow_all':
      plan.start = candidates;
      break;
    case 'skip':
      if (running || newest === undefined) skipped += candidates.length;
      else {
        plan.start = [newest];
        skipped += candidates.length - 1;
      }
      break;
    case 'buffer_one': {
      // One runs, one waits: the rest are skipped.
      const waiting = running ? candidates : candidates.slice(1);
      if (!running && candidates[0] !== undefined) plan.start = [candidates[0]];
      plan.bufferedAt = waiting.at(-1) ?? null;
      skipped += Math.max(0, waiting.length - 1);
      break;
    }
    case 'cancel_other':
      if (newest !== undefined) {
        plan.start = [newest];
        plan.cancelRunning = running;
        skipped += candidates.length - 1;
      }
      break;
  }
  plan.skipped = skipped;
  return plan;
}
