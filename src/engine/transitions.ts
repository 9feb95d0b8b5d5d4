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
import type { TransitionOn } from '../graph/compiled-workflow.js';
import { joinDecision } from '../graph/join-rule.js';
import type { Step } from './step.js';

/** Packs "taken" into the high part of the settle counter. */
export const TAKEN = 1_000_000n;

function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

/**
 * Settles every outgoing transition of `from` after it ended with `outcome`. Returns
 * true when at least one of them was taken.
 */
export async function settleOutgoing(
  step: Step,
  from: string,
  dimension: string,
  outcome: TransitionOn,
): Promise<boolean> {
  let any = false;
  const scope = step.activity(from).scope;
  for (const t of step.wf.outgoing.get(from) ?? []) {
    let taken = t.on === outcome;
    if (taken && t.when !== undefined) {
      taken = isTruthy(
        await step.evaluate(t.when, `transition ${t.from} -> ${t.to} (when)`, scope),
      );
    }
    any ||= taken;
    await settle(step, t.to, dimension, taken);
  }
  return any;
}

/** True when `from` has an outgoing transition for this outcome. */
export function handles(step: Step, from: string, outcome: TransitionOn): boolean {
  return (step.wf.outgoing.get(from) ?? []).some((t) => t.on === outcome);
}

async function settle(step: Step, target: string, dimension: string, taken: boolean) {
  const activity = step.activity(target);
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
  if (decision === 'enter') enter(step, target, dimension);
  else if (decision === 'skip') await skip(step, target, dimension);
}

/** Queues Leg1 of an activity. */
export function enter(step: Step, activity: string, dimension: string): void {
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
    await settle(step, t.to, dimension, false);
  }
}
