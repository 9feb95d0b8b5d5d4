/**
 * Ends an activity in one dimension: its output or error is stored, its outgoing
 * transitions settle, and its digit moves. The digit tells how the activity ended, so a
 * job's end can be read off its key: an error or timeout that an `on: error` /
 * `on: timeout` transition took is handled — the activity ends on its success digit (6,
 * or 4 for a hook) — while one that no transition took ends on 7 (errored) and is
 * recorded on the job, which then ends in FAILURE once nothing is active. So a SUCCESS
 * job's final key holds no 7, and a FAILURE job's key holds one.
 */
import { COLLATION_DIGITS, type CollationDigit } from '../core/collation-digits.js';
import type { TransitionOn } from '../graph/compiled-workflow.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { ActivityAddress } from './messages.js';
import type { Step } from './step.js';
import { settleOutgoing } from './transitions.js';

/** How an activity ended. */
export interface ActivityEnd {
  outcome: TransitionOn;
  output?: Json;
  error?: ErrorRecord;
  /**
   * The digit it ends on when it succeeds or a transition takes its error or timeout
   * (default 6; a hook ends on 4, released). An error or timeout no transition takes
   * always ends on 7.
   */
  digit?: CollationDigit;
}

/** Ends an activity and settles its transitions. */
export async function finishActivity(
  step: Step,
  address: ActivityAddress,
  end: ActivityEnd,
): Promise<void> {
  const status = end.outcome === 'success' ? 'SUCCESS' : 'FAILURE';
  await step.tx.putActivity({
    job: step.job.id,
    activity: address.a,
    dimension: address.d,
    status,
    output: end.output ?? null,
    error: end.error ?? null,
    finishedAt: step.clock.now(),
  });
  step.remember(address.a, { status, output: end.output, error: end.error as Json | undefined });
  const taken = await settleOutgoing(step, address.a, address.d, end.outcome);
  const handled = end.outcome === 'success' || taken;
  await step.move(
    address.a,
    handled ? (end.digit ?? COLLATION_DIGITS.completed) : COLLATION_DIGITS.errored,
  );
  if (!handled) await recordUnhandled(step, address, end.error);
}

async function recordUnhandled(step: Step, address: ActivityAddress, error?: ErrorRecord) {
  if (step.job.error) return;
  const record: ErrorRecord = {
    name: error?.name ?? 'ActivityError',
    message: `activity ${address.a} failed: ${error?.message ?? 'unknown error'}`,
    activity: address.a,
    ...(error?.code ? { code: error.code } : {}),
  };
  step.job.error = record;
  await step.tx.updateJob(step.job.id, { error: record });
}
