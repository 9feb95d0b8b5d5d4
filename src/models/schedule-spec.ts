/**
 * A schedule as a user declares it — in code (`defineSchedule`, a worker's `schedules`),
 * in a workflow file (`schedules:`) or on the command line (`weft schedule create`) —
 * checked once, and stored: a new schedule waits for its first tick after now; declaring
 * it again with a changed expression or time zone moves its next tick, and declaring it
 * unchanged keeps where it stands (paused or not, a held tick, its counts).
 */
import { CronTimes, DEFAULT_TIME_ZONE } from '../core/cron.js';
import { ValidationError } from '../core/errors.js';
import { MAX_DURATION_MS } from '../graph/durations.js';
import type { Json, OverlapPolicy, ScheduleRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

/** The overlap policies, the default first. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = [
  'skip',
  'buffer_one',
  'allow_all',
  'cancel_other',
];

/** Ticks missed by more than this are skipped unless a schedule says otherwise: 1 minute. */
export const DEFAULT_CATCHUP_WINDOW_MS = 60_000;

/** Ticks that fell while a schedule was paused are counted as skipped up to this many. */
const PAUSED_TICKS_COUNTED = 10_000;

/** A schedule's name: it is the start of its jobs' ids, so no `@`, no spaces. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/** What a schedule is, as declared. */
export interface ScheduleSpec {
  /** Unique in the store; its jobs are named `<name>@<tick time>`. */
  name: string;
  /** The workflow each tick starts (by name, or a code-first definition). */
  workflow: string | { readonly name: string };
  /** Five fields (minute first), six (seconds first), or `@hourly`, `@daily`, … */
  cron: string;
  /** An IANA time zone (default UTC). */
  timezone?: string;
  /** Every tick's job input (default null). */
  input?: Json;
  /** What a tick does while the last tick's job still runs (default `skip`). */
  overlap?: OverlapPolicy;
  /** Ticks missed by more than this many ms are skipped (default 60000). */
  catchupWindowMs?: number;
}

/** A checked spec, every field filled in. */
export type CheckedSchedule = Pick<
  ScheduleRecord,
  'name' | 'workflow' | 'cron' | 'timezone' | 'input' | 'overlap' | 'catchupWindowMs'
>;

/** Checks a spec; a field that is wrong is a ValidationError naming it. */
export function checkSchedule(
  spec: ScheduleSpec,
  where = `schedule ${spec?.name}`,
): CheckedSchedule {
  if (typeof spec?.name !== 'string' || !NAME.test(spec.name)) {
    throw new ValidationError(
      `name ${JSON.stringify(spec?.name)} is not a schedule name: letters, digits and . _ : / - (not first), up to 128`,
      where,
    );
  }
  const workflow = typeof spec.workflow === 'string' ? spec.workflow : spec.workflow?.name;
  if (typeof workflow !== 'string' || workflow === '') {
    throw new ValidationError('workflow is missing: name the workflow each tick starts', where);
  }
  if (typeof spec.cron !== 'string') {
    throw new ValidationError('cron is missing: a cron expression such as "0 3 * * *"', where);
  }
  const timezone = spec.timezone ?? DEFAULT_TIME_ZONE;
  new CronTimes(spec.cron, timezone, where);
  const overlap = spec.overlap ?? 'skip';
  if (!OVERLAP_POLICIES.includes(overlap)) {
    throw new ValidationError(
      `overlap ${JSON.stringify(overlap)} is not one of ${OVERLAP_POLICIES.join(', ')}`,
      where,
    );
  }
  const catchupWindowMs = spec.catchupWindowMs ?? DEFAULT_CATCHUP_WINDOW_MS;
  if (
    !Number.isInteger(catchupWindowMs) ||
    catchupWindowMs < 0 ||
    catchupWindowMs > MAX_DURATION_MS
  ) {
    throw new ValidationError(
      `catchupWindowMs ${JSON.stringify(catchupWindowMs)} is not a whole number of ms from 0 to ${MAX_DURATION_MS}`,
      where,
    );
  }
  return {
    name: spec.name,
    workflow,
    cron: spec.cron,
    timezone,
    input: spec.input ?? null,
    overlap,
    catchupWindowMs,
  };
}

/**
 * Declares a schedule in code, checked at once (a bad expression fails where it is
 * written, not at its first tick). Give it to a worker's `schedules`, or to
 * `client.schedules.create`.
 */
export function defineSchedule(spec: ScheduleSpec): CheckedSchedule {
  return checkSchedule(spec);
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
    ...spec,
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
