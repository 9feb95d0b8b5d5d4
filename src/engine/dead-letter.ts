/**
 * A graph job whose engine or task message was dead-lettered ends in FAILURE at once,
 * and its key says so: the message's activity moves to 7 (errored) from where it stood —
 * 9 (an `enter` that kept failing) by 9→8→7, 8 (a task, sleep or await) by 8→7, 5 (a
 * paused hook whose signal or timeout kept failing) by 5→7. Where it stood is kept in
 * the job's error (`digitBefore`), so requeueing the message puts it back there by legal
 * moves (7→9, then 9→8, 8→6, 6→5 as needed) and the job runs again.
 */
import { COLLATION_DIGITS, type CollationDigit } from '../core/collation-digits.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { ActivityAddress } from './messages.js';
import type { Step } from './step.js';

/** The digits a dead letter's activity can stand on, and the moves from 7 back to each. */
const BACK: Partial<Record<CollationDigit, CollationDigit[]>> = {
  9: [9],
  8: [9, 8],
  5: [9, 8, 6, 5],
};

/** The activity a message payload is for, when it names one this workflow has. */
export function addressOf(step: Step, payload: Json): ActivityAddress | undefined {
  const p = payload as { a?: unknown; d?: unknown } | null;
  if (typeof p?.a !== 'string' || !(p.a in step.wf.compiled.activities)) return undefined;
  return { job: step.job.id, a: p.a, d: typeof p.d === 'string' ? p.d : '' };
}

/**
 * Plans a dead letter's failure: its activity to 7, the error on the activity and on the
 * job (with `digitBefore` when the activity moved). The caller ends the job.
 */
export async function failDeadLettered(
  step: Step,
  address: ActivityAddress | undefined,
  error: ErrorRecord,
): Promise<void> {
  let record = error;
  if (address) {
    const before = await step.digit(address.a);
    if (before in BACK) {
      if (before === COLLATION_DIGITS.pending) await step.move(address.a, COLLATION_DIGITS.started);
      await step.move(address.a, COLLATION_DIGITS.errored);
      record = { ...error, digitBefore: before };
      const held = (await step.record(address.a, address.d))?.status ?? 'PENDING';
      if (held === 'PENDING') {
        step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
      }
      step.putActivity({
        activity: address.a,
        dimension: address.d,
        status: 'FAILURE',
        error,
        finishedAt: step.clock.now(),
      });
    }
  }
  step.recordJobError(record);
}

/**
 * Plans undoing {@link failDeadLettered} when the message is requeued: the activity back
 * to the digit it stood on, its record running again, the job RUNNING with no error.
 */
export async function reopenDeadLettered(
  step: Step,
  address: ActivityAddress | undefined,
  error: ErrorRecord,
): Promise<void> {
  const before = error.digitBefore as CollationDigit | undefined;
  const path = before === undefined ? undefined : BACK[before];
  if (address && path && (await step.digit(address.a)) === COLLATION_DIGITS.errored) {
    for (const digit of path) await step.move(address.a, digit);
    // An operator's requeue is TaskFlow's reset(): back to PENDING, then running again.
    step.putActivity(
      {
        activity: address.a,
        dimension: address.d,
        status: 'PENDING',
        error: null,
        finishedAt: null,
      },
      { reset: true },
    );
    if (before !== COLLATION_DIGITS.pending) {
      step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
    }
  }
  step.endJob('FAILURE', 'RUNNING', { error: null, output: null, finishedAt: null });
}
