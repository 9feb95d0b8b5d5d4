/**
 * What happens after an activity ends: its outgoing transitions are settled — taken or
 * not — and each target learns whether it runs, waits, or is skipped.
 *
 * Every target with several incoming transitions keeps one counter per dimension that
 * packs two numbers: how many of them have settled, and how many of those were taken (a
 * target with one needs no counter: it settles once). What the counts mean — enter,
 * skip or wait — is the graph's join rule ({@link joinDecision}); a skipped target's own
 * outgoing transitions settle as not taken, so the skip spreads to everything only it
 * reaches (seed 000, Example 2).
 */
import { COLLATION_DIGITS } from '../core/collation-digits.js';
import { ExpressionError, toErrorRecord } from '../core/errors.js';
import type { TransitionOn } from '../graph/compiled-workflow.js';
import { joinDecision } from '../graph/join-rule.js';
import type { ErrorRecord } from '../store/records.js';
import { arrive } from './kinds/collect.js';
import type { Step } from './step.js';

/** Packs "taken" into the high part of the settle counter. */
export const TAKEN = 1_000_000n;

function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

/** Which outgoing transitions of an activity an outcome takes (see {@link decideOutgoing}). */
export interface OutgoingDecision {
  /** Taken or not, in the order of `wf.outgoing`. */
  taken: boolean[];
  /** The first `when` that failed (it counts as not taken). */
  failure?: ExpressionError;
}

/**
 * Decides every outgoing transition of `from` for `outcome`, all at once, over the data
 * as `from` ends: a transition is taken when it is for that outcome and its `when` (if
 * any) is true. A `when` that fails counts as not taken and is reported, for the caller
 * to fail with it.
 */
export async function decideOutgoing(
  step: Step,
  from: string,
  outcome: TransitionOn,
): Promise<OutgoingDecision> {
  const decision: OutgoingDecision = { taken: [] };
  const scope = step.activity(from).scope;
  for (const t of step.wf.outgoing.get(from) ?? []) {
    let taken = t.on === outcome;
    if (taken && t.when !== undefined) {
      try {
        taken = isTruthy(
          await step.evaluate(t.when, `transition ${t.from} -> ${t.to} (when)`, scope),
        );
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        decision.failure ??= error;
        taken = false;
      }
    }
    decision.taken.push(taken);
  }
  return decision;
}

/** Settles every outgoing transition of `from` as decided; true when one was taken. */
export async function settleDecided(
  step: Step,
  from: string,
  dimension: string,
  decision: OutgoingDecision,
): Promise<boolean> {
  let any = false;
  const outgoing = step.wf.outgoing.get(from) ?? [];
  for (const [i, t] of outgoing.entries()) {
    const taken = decision.taken[i] === true;
    any ||= taken;
    if (!taken) step.dispose(from, `transition ${from} -> ${t.to} not taken`);
    await settle(step, t.to, dimension, taken, from);
  }
  return any;
}

/**
 * Settles every outgoing transition of `from` after it ended with `outcome` (a spread's
 * item, a collect's batch: what ends with no record to fail). A `when` that fails is not
 * taken, and its error is the job's: the job ends in FAILURE once nothing is active.
 * Returns true when at least one transition was taken.
 */
export async function settleOutgoing(
  step: Step,
  from: string,
  dimension: string,
  outcome: TransitionOn,
): Promise<boolean> {
  const decision = await decideOutgoing(step, from, outcome);
  if (decision.failure && !step.job.error) {
    step.recordJobError({
      ...(toErrorRecord(decision.failure) as ErrorRecord),
      message: `activity ${from} failed: ${decision.failure.message}`,
      activity: from,
    });
  }
  return settleDecided(step, from, dimension, decision);
}

/** True when `from` has an outgoing transition for this outcome. */
export function handles(step: Step, from: string, outcome: TransitionOn): boolean {
  return (step.wf.outgoing.get(from) ?? []).some((t) => t.on === outcome);
}

/** Settles one transition `from` → `target` in a thread, taken or not. */
export async function settle(
  step: Step,
  target: string,
  dimension: string,
  taken: boolean,
  from: string,
): Promise<void> {
  const activity = step.activity(target);
  // A collect is not entered: what reaches it is held until nothing upstream can.
  if (activity.kind === 'collect') {
    await arrive(step, activity, dimension, taken, from);
    return;
  }
  const total = BigInt(step.wf.incoming.get(target)?.length ?? 0);
  const delta = taken ? TAKEN + 1n : 1n;
  // A target with one incoming transition settles once per dimension, in this step: its
  // count is known without a counter.
  const value =
    total <= 1n
      ? delta
      : await step.addCounter(
          { job: step.job.id, activity: target, dimension, field: 'settled' },
          delta,
        );
  const decision = joinDecision(
    activity.join,
    { incoming: Number(total), settled: Number(value % TAKEN), taken: Number(value / TAKEN) },
    taken,
  );
  if (decision === 'enter') await enter(step, target, dimension);
  else if (decision === 'skip') await skip(step, target, dimension);
}

/** The job-level counter of an activity's `enter` messages not yet run (see {@link enter}). */
export const QUEUED_FIELD = 'queued';

/**
 * Queues Leg1 of an activity, and counts it as queued until its Leg1 runs: an activity
 * still pending (9) with an `enter` on its way is live for a collect's reachability.
 */
export async function enter(step: Step, activity: string, dimension: string): Promise<void> {
  await step.addCounter({ job: step.job.id, activity, field: QUEUED_FIELD }, 1n);
  step.sendEngine({ k: 'enter', job: step.job.id, a: activity, d: dimension });
}

/** Skips an activity (9→3) and settles everything after it as not taken. */
export async function skip(step: Step, activity: string, dimension: string): Promise<void> {
  await step.move(activity, COLLATION_DIGITS.skipped);
  step.putActivity({
    activity,
    dimension,
    status: 'IGNORE',
  });
  step.remember(activity, { status: 'IGNORE' });
  for (const t of step.wf.outgoing.get(activity) ?? []) {
    await settle(step, t.to, dimension, false, activity);
  }
}
