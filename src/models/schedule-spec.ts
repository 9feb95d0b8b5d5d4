/**
 * A schedule as a user declares it — in code (`defineSchedule`, a worker's `schedules`),
 * in a workflow file (`schedules:`) or on the command line (`weft schedule create`) —
 * checked once, and stored: a new schedule waits for its first tick after now; declaring
 * it again with a changed expression or time zone moves its next tick, and declaring it
 * unchanged keeps where it stands (paused or not, a held tick, its counts).
 */
import { CronTimes } from '../core/cron.js';
import { type CheckedSchedule, checkSchedule, type ScheduleSpec } from '../core/schedule-rules.js';
import type { Json, ScheduleRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

export {
  type CheckedSchedule,
  checkSchedule,
  DEFAULT_CATCHUP_WINDOW_MS,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  type ScheduleSpec,
} from '../core/schedule-rules.js';

/** Ticks that fell while a schedule was paused are counted as skipped up to this many. */
const PAUSED_TICKS_COUNTED = 10_000;

/** A schedule declared in code: a checked declaration, marked so a worker module's exports are found. */
export type ScheduleDefinition = CheckedSchedule & { readonly kind: 'schedule' };

/**
 * Declares a schedule in code, checked at once (a bad expression fails where it is
 * written, not at its first tick). Give it to a worker's `schedules`, or export it from
 * a `weft worker --handlers` module, or pass it to `client.schedules.create`.
 */
export function defineSchedule(spec: ScheduleSpec): ScheduleDefinition {
  return Object.freeze({ ...checkSchedule(spec), kind: 'schedule' as const });
}

/** Whether a declaration changes a stored schedule. */
function sameDeclaration(a: CheckedSchedule, b: CheckedSchedule): boolean {
  return (
    a.workflow === b.workflow &&
    a.cron === b.cron &&
    a.timezone === b.timezone &&
    a.overlap === b.overlap &&
    a.catchupWindowMs === b.catchupWindowMs &&
    JSON.stringify(a.input) === JSON.stringify(b.input)
  );
}

/** What declaring did. */
export type DeclareStatus = 'created' | 'updated' | 'unchanged';

/** Stores a checked schedule in `tx` (see the module's note for what is kept). */
export async function declareSchedule(
  tx: StoreTx,
  spec: CheckedSchedule,
  now: number,
  source: string,
): Promise<{ schedule: ScheduleRecord; status: DeclareStatus }> {
  const stored = await tx.lockSchedule(spec.name);
  if (stored && sameDeclaration(stored, spec)) return { schedule: stored, status: 'unchanged' };
  const cron = new CronTimes(spec.cron, spec.timezone, `schedule ${spec.name}`);
  const retimed = !stored || stored.cron !== spec.cron || stored.timezone !== spec.timezone;
  const schedule: ScheduleRecord = {
    paused: false,
    bufferedAt: null,
    lastTickAt: null,
    lastJob: null,
    lastError: null,
    runs: 0,
    skipped: 0,
    createdAt: now,
    ...stored,
    name: spec.name,
    workflow: spec.workflow,
    cron: spec.cron,
    timezone: spec.timezone,
    overlap: spec.overlap,
    catchupWindowMs: spec.catchupWindowMs,
    input: (spec.input ?? null) as Json,
    nextAt: retimed ? (cron.next(now) ?? null) : (stored?.nextAt ?? null),
    source,
    updatedAt: now,
  };
  await tx.putSchedule(schedule);
  return { schedule, status: stored ? 'updated' : 'created' };
}

/**
 * Pauses (`paused` true) or resumes a schedule in `tx`. A resumed schedule waits for its
 * next tick after now: the ticks that fell while it was paused are counted as skipped.
 */
export async function setSchedulePaused(
  tx: StoreTx,
  name: string,
  paused: boolean,
  now: number,
): Promise<ScheduleRecord | undefined> {
  const stored = await tx.lockSchedule(name);
  if (!stored || stored.paused === paused) return stored;
  let { nextAt, skipped } = stored;
  if (!paused) {
    const cron = new CronTimes(stored.cron, stored.timezone, `schedule ${name}`);
    if (nextAt !== null && nextAt <= now) {
      const missed = cron.between(nextAt, now, PAUSED_TICKS_COUNTED);
      skipped += missed.ticks.length;
    }
    nextAt = cron.next(now) ?? null;
  }
  const schedule = { ...stored, paused, nextAt, skipped, bufferedAt: null, updatedAt: now };
  await tx.putSchedule(schedule);
  return schedule;
}
