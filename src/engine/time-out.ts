/**
 * A graph job whose deadline passed (job-deadline.ts) ends at once, and its key says
 * which activities it cut off: every activity still started (8) or paused (5) moves to
 * 7 (errored), so the FAILURE key holds a 7 like any other; pending ones (9) never ran
 * and stay 9. The records of those activities that were running (RUNNING, or REVERTING
 * for a revert in flight) end FAILURE (REVERT_FAILURE) with the timeout error. No
 * `on: error` path and no `on_failure: revert` runs: a timeout ends the job, as a
 * workflow execution timeout does in Temporal. Child jobs are told to end the same way.
 */
import { COLLATION_DIGITS } from '../core/collation-digits.js';
import type { ActivityState } from '../core/states.js';
import type { Json } from '../store/records.js';
import { childDeadline, type DeadlineMessage, jobTimeoutRecord } from './job-deadline.js';
import { ENGINE_STREAM } from './messages.js';
import type { Step } from './step.js';

/** What a running record ends as when its job times out. */
const CUT_OFF: Partial<Record<ActivityState, ActivityState>> = {
  RUNNING: 'FAILURE',
  REVERTING: 'REVERT_FAILURE',
};

/**
 * Plans the timeout of a running graph job on `step` (in the job's own thread): the
 * digits, the records, the job's error, and a `deadline` message for each of
 * `children` (its child jobs that have not ended). The caller ends the job, without
 * revert. Returns the activities cut off.
 */
export async function planTimeOut(
  step: Step,
  message: DeadlineMessage,
  children: readonly string[],
): Promise<string[]> {
  const cut: string[] = [];
  for (const id of step.wf.compiled.order) {
    const digit = await step.digit(id);
    if (digit !== COLLATION_DIGITS.started && digit !== COLLATION_DIGITS.paused) continue;
    await step.move(id, COLLATION_DIGITS.errored);
    cut.push(id);
  }
  const error = jobTimeoutRecord(message, cut, step.job.error);
  const now = step.clock.now();
  const cutOff = new Set(cut);
  for (const record of await step.allRecords()) {
    const to = CUT_OFF[record.status];
    if (!to || !cutOff.has(record.activity)) continue;
    step.putActivity({
      activity: record.activity,
      dimension: record.dimension,
      status: to,
      error,
      finishedAt: now,
    });
  }
  step.recordJobError(error);
  for (const child of children) {
    step.send({
      stream: ENGINE_STREAM,
      job: child,
      payload: childDeadline(message, child) as unknown as Json,
    });
  }
  return cut;
}
