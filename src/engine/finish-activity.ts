/**
 * Ends an activity in one dimension: its digit moves, its output or error is stored, and
 * its outgoing transitions settle. An error or timeout with no transition to take is
 * recorded on the job, which then ends in FAILURE once nothing is active.
 *
 * The key tells a job's end both ways: only an error nothing handles ends on 7
 * (errored), so a FAILURE job's key holds a 7 and a SUCCESS job's holds none. An error or
 * timeout that an `on: error` / `on: timeout` transition takes ends where the activity's
 * success would: 6 (completed), or 4 (released) for a hook; its record keeps the error.
 * A transition counts when it is taken: one whose `when` is false handles nothing.
 */
import { COLLATION_DIGITS, type CollationDigit } from '../core/collation-digits.js';
import type { TransitionOn } from '../graph/compiled-workflow.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { ActivityAddress } from './messages.js';
import { noteCompletion } from './revert.js';
import type { Step } from './step.js';
import { settleOutgoing } from './transitions.js';

/** How an activity ended. */
export interface ActivityEnd {
  outcome: TransitionOn;
  output?: Json;
  error?: ErrorRecord;
  /**
   * The digit a handled end moves to (default 6; 4 for a hook). An error or timeout that
   * no transition handles always ends on 7.
   */
  digit?: CollationDigit;
  /**
   * The activity is a scope whose retry controller writes its record's state itself
   * (scope-retry.ts: REVERTING → REVERTED or REVERT_FAILURE): the end leaves the state to it.
   */
  controller?: true;
}

/** Ends an activity and settles its transitions. */
export async function finishActivity(
  step: Step,
  address: ActivityAddress,
  end: ActivityEnd,
): Promise<void> {
  const status = end.outcome === 'success' ? 'SUCCESS' : 'FAILURE';
  // An activity that ends in the step that entered it (a trigger, say) still runs first:
  // PENDING -> RUNNING -> SUCCESS/FAILURE, as the task machine goes.
  if (((await step.record(address.a, address.d))?.status ?? 'PENDING') === 'PENDING') {
    step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
  }
  step.putActivity({
    activity: address.a,
    dimension: address.d,
    ...(end.controller ? {} : { status }),
    output: end.output ?? null,
    error: end.error ?? null,
    finishedAt: step.clock.now(),
  });
  step.remember(address.a, { status, output: end.output, error: end.error as Json | undefined });
  // Handled means taken: an `on: error` transition whose `when` is false handles nothing.
  const taken = await settleOutgoing(step, address.a, address.d, end.outcome);
  const handled = end.outcome === 'success' || taken;
  const digit = handled ? (end.digit ?? COLLATION_DIGITS.completed) : COLLATION_DIGITS.errored;
  await step.move(address.a, digit);
  await noteCompletion(step, address);
  if (!handled) recordUnhandled(step, address, end.error);
}

function recordUnhandled(step: Step, address: ActivityAddress, error?: ErrorRecord) {
  // An unhandled error inside a scope is the scope's error: it fails when its members end.
  if (step.job.error || step.activity(address.a).scope !== undefined) return;
  const record: ErrorRecord = {
    name: error?.name ?? 'ActivityError',
    message: `activity ${address.a} failed: ${error?.message ?? 'unknown error'}`,
    activity: address.a,
    ...(error?.code ? { code: error.code } : {}),
  };
  step.recordJobError(record);
}
