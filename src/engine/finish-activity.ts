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
import { ExpressionError, toErrorRecord } from '../core/errors.js';
import type { TransitionOn } from '../graph/compiled-workflow.js';
import type { ErrorRecord, Json } from '../store/records.js';
import type { ActivityAddress } from './messages.js';
import { noteCompletion } from './revert.js';
import type { Step } from './step.js';
import { decideOutgoing, type OutgoingDecision, settleDecided } from './transitions.js';

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

/**
 * Ends an activity and settles its transitions. The transitions are decided first, all
 * at once, over the data as the activity ends (its own output or error included); a
 * `when` that fails (an ExpressionError, a limit included) makes this end the activity's
 * failure with that error: its `on: error` transition takes it, or the job fails.
 */
export async function finishActivity(
  step: Step,
  address: ActivityAddress,
  end: ActivityEnd,
): Promise<void> {
  let final = end;
  let decision = await decideEnd(step, address, final);
  if (decision.failure) {
    final = { ...end, outcome: 'error', output: null, error: failureRecord(decision.failure) };
    decision = await decideEnd(step, address, final);
  }
  const status = final.outcome === 'success' ? 'SUCCESS' : 'FAILURE';
  // An activity that ends in the step that entered it (a trigger, say) still runs first:
  // PENDING -> RUNNING -> SUCCESS/FAILURE, as the task machine goes.
  if (((await step.record(address.a, address.d))?.status ?? 'PENDING') === 'PENDING') {
    step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
  }
  step.putActivity({
    activity: address.a,
    dimension: address.d,
    ...(final.controller ? {} : { status }),
    output: final.output ?? null,
    error: final.error ?? null,
    finishedAt: step.clock.now(),
  });
  // Handled means taken: an `on: error` transition whose `when` is false handles nothing.
  const taken = await settleDecided(step, address.a, address.d, decision);
  const handled = final.outcome === 'success' || taken;
  const digit = handled ? (final.digit ?? COLLATION_DIGITS.completed) : COLLATION_DIGITS.errored;
  await step.move(address.a, digit);
  await noteCompletion(step, address);
  if (!handled) recordUnhandled(step, address, final.error);
}

/** Decides the transitions an end takes, with the activity's end in the data they see. */
async function decideEnd(
  step: Step,
  address: ActivityAddress,
  end: ActivityEnd,
): Promise<OutgoingDecision> {
  // What each `when` reads is read before the end is written, then told of it: what a
  // `when` sees. Only the names it reads: a cycle's thousandth turn reads no more.
  const scope = step.activity(address.a).scope;
  for (const t of step.wf.outgoing.get(address.a) ?? []) {
    if (t.on === end.outcome && t.when !== undefined) await step.readsOf(t.when, scope);
  }
  step.remember(address.a, {
    status: end.outcome === 'success' ? 'SUCCESS' : 'FAILURE',
    output: end.output,
    error: end.error as Json | undefined,
  });
  return decideOutgoing(step, address.a, end.outcome);
}

/** An expression's failure as an activity's error record. */
export function failureRecord(error: ExpressionError): ErrorRecord {
  return toErrorRecord(error) as ErrorRecord;
}

/**
 * Evaluates one of an activity's own expressions as it starts (a task's or an await's
 * input, a spread's items). When the expression fails — an ExpressionError, a limit
 * included — the activity ends at once with that error (its `on: error` transition, or
 * the job's failure) and this returns undefined: a failing expression is the activity's
 * failure, never a step delivered again.
 */
export async function evaluateOrFail(
  step: Step,
  address: ActivityAddress,
  expression: string,
  where: string,
  scope: string | undefined,
): Promise<{ value: Json } | undefined> {
  try {
    return { value: await step.evaluate(expression, where, scope) };
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    await finishActivity(step, address, { outcome: 'error', error: failureRecord(error) });
    return undefined;
  }
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
