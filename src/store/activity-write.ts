/**
 * The rule of an activity write, the same on every backend: one record per (job,
 * activity, dimension) — the dimension `''` when absent — upserted so that the fields a
 * write leaves out keep their stored values, and a new record takes the defaults for them
 * (status `PENDING`, input, output and error null, attempt 0, no start or finish time). A
 * field given as `null` is set to null. A status that is not a task or retry state is
 * refused with `InvalidStateError`. The backends keep the upsert's SQL.
 */
import { InvalidStateError } from '../core/errors.js';
import { type ActivityState, isActivityState } from '../core/states.js';
import type { ActivityRecord, ActivityWrite } from './records.js';

/** The status of an activity written without one. */
export const DEFAULT_ACTIVITY_STATUS: ActivityState = 'PENDING';

/** The fields a write may leave out. */
type Field = 'status' | 'input' | 'output' | 'error' | 'attempt' | 'startedAt' | 'finishedAt';

/** A write made explicit: the values a new record takes, and which fields it sets. */
export interface ActivityRow extends Omit<ActivityRecord, 'updatedAt'> {
  /** Whether the write gave the field (then a stored record takes it too). */
  sets: Record<Field, boolean>;
}

/** True when `write` gives `field` (even as null); false when it leaves it out. */
function gives(write: ActivityWrite, field: Field): boolean {
  return write[field] !== undefined;
}

/** The explicit form of `write`. */
export function activityRow(write: ActivityWrite): ActivityRow {
  // Only states of the task and retry machines are stored; the moves between them are
  // checked where they are planned (engine/job-state.ts), under the job's lock.
  if (write.status !== undefined && !isActivityState(write.status)) {
    throw new InvalidStateError(
      `task ${write.activity} of job ${write.job}`,
      '?',
      String(write.status),
      'not a task or retry state',
    );
  }
  return {
    job: write.job,
    activity: write.activity,
    dimension: write.dimension ?? '',
    status: write.status ?? DEFAULT_ACTIVITY_STATUS,
    input: write.input ?? null,
    output: write.output ?? null,
    error: write.error ?? null,
    attempt: write.attempt ?? 0,
    startedAt: write.startedAt ?? null,
    finishedAt: write.finishedAt ?? null,
    sets: {
      status: gives(write, 'status'),
      input: gives(write, 'input'),
      output: gives(write, 'output'),
      error: gives(write, 'error'),
      attempt: gives(write, 'attempt'),
      startedAt: gives(write, 'startedAt'),
      finishedAt: gives(write, 'finishedAt'),
    },
  };
}
