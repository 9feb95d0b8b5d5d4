/**
 * The rules of a schedule's declaration, wherever it is written — in code
 * (`defineSchedule`), in a workflow file (`schedules:`) or on the command line: the
 * overlap policies, the default catch-up window, what a name may be, and the check that
 * fills in the defaults and names the field that is wrong. Pure.
 */
import { CronTimes, checkTimeZone, DEFAULT_TIME_ZONE } from './cron.js';
import { ValidationError } from './errors.js';

/**
 * What a schedule does when a tick comes while the job of an earlier tick still runs:
 * `skip` the tick; `buffer_one`: hold it (one at most) and start it when the running job
 * ends; `allow_all`: start it anyway; `cancel_other`: cancel the running job, then start.
 */
export type OverlapPolicy = 'skip' | 'buffer_one' | 'allow_all' | 'cancel_other';

/** The overlap policies, the default first. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = [
  'skip',
  'buffer_one',
  'allow_all',
  'cancel_other',
];

/** Ticks missed by more than this are skipped unless a schedule says otherwise: 1 minute. */
export const DEFAULT_CATCHUP_WINDOW_MS = 60_000;

/** The longest catch-up window: 1000 days, the longest duration weft takes anywhere. */
const MAX_CATCHUP_WINDOW_MS = 1000 * 86_400_000;

/** A schedule's name: it is the start of its jobs' ids, so no `@`, no spaces. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

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
  input?: unknown;
  /** What a tick does while the last tick's job still runs (default `skip`). */
  overlap?: OverlapPolicy;
  /** Ticks missed by more than this many ms are skipped (default 60000). */
  catchupWindowMs?: number;
}

/** A checked declaration, every field filled in. */
export interface CheckedSchedule {
  name: string;
  /** The workflow each tick starts a job of (a graph workflow, or a code-first one). */
  workflow: string;
  /** The cron expression (five fields, six with seconds first, or `@daily` and the like). */
  cron: string;
  /** The IANA time zone the expression is read in. */
  timezone: string;
  /** Every tick's job input. */
  input: unknown;
  overlap: OverlapPolicy;
  /** Ticks missed by more than this (no worker ran) are skipped, not started late. */
  catchupWindowMs: number;
}

/** A field of a declaration that is wrong, and why. */
export interface ScheduleProblem {
  field: 'name' | 'workflow' | 'cron' | 'timezone' | 'overlap' | 'catchupWindowMs';
  message: string;
}

/**
 * Checks a declaration: the checked schedule, every field filled in, or the first field
 * that is wrong (the fields in declaration order).
 */
export function scheduleProblem(spec: ScheduleSpec): CheckedSchedule | ScheduleProblem {
  if (typeof spec?.name !== 'string' || !NAME.test(spec.name)) {
    return {
      field: 'name',
      message: `name ${JSON.stringify(spec?.name)} is not a schedule name: letters, digits and . _ : - (not first), up to 128`,
    };
  }
  const workflow = typeof spec.workflow === 'string' ? spec.workflow : spec.workflow?.name;
  if (typeof workflow !== 'string' || workflow === '') {
    return {
      field: 'workflow',
      message: 'workflow is missing: name the workflow each tick starts',
    };
  }
  if (typeof spec.cron !== 'string') {
    return { field: 'cron', message: 'cron is missing: a cron expression such as "0 3 * * *"' };
  }
  const timezone = spec.timezone ?? DEFAULT_TIME_ZONE;
  try {
    checkTimeZone(timezone, '');
  } catch (error) {
    return { field: 'timezone', message: (error as Error).message };
  }
  try {
    new CronTimes(spec.cron, timezone, '');
  } catch (error) {
    return { field: 'cron', message: (error as Error).message };
  }
  const overlap = spec.overlap ?? 'skip';
  if (!OVERLAP_POLICIES.includes(overlap)) {
    return {
      field: 'overlap',
      message: `overlap ${JSON.stringify(overlap)} is not one of ${OVERLAP_POLICIES.join(', ')}`,
    };
  }
  const catchupWindowMs = spec.catchupWindowMs ?? DEFAULT_CATCHUP_WINDOW_MS;
  if (
    !Number.isInteger(catchupWindowMs) ||
    catchupWindowMs < 0 ||
    catchupWindowMs > MAX_CATCHUP_WINDOW_MS
  ) {
    return {
      field: 'catchupWindowMs',
      message: `catchupWindowMs ${JSON.stringify(catchupWindowMs)} is not a whole number of ms from 0 to ${MAX_CATCHUP_WINDOW_MS}`,
    };
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

/** Checks a declaration; the first field that is wrong is a ValidationError at `where`. */
export function checkSchedule(
  spec: ScheduleSpec,
  where = `schedule ${spec?.name}`,
): CheckedSchedule {
  const checked = scheduleProblem(spec);
  if ('field' in checked) throw new ValidationError(checked.message, where);
  return checked;
}
