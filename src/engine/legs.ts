/**
 * The two legs of seed 001, planned on an activity's semaphore. Leg1 runs when an
 * activity's `enter` message is dequeued; Leg2 runs once per worker response (a task
 * result, a signal, a timer, a child's end).
 *
 * A step reads the semaphore under its job's lock and plans its add only when the leg may
 * run, and the whole step commits or rolls back as one: a crash can never leave Leg1
 * half-done (`799…`). What the semaphore catches is a second delivery of the same work —
 * a duplicated message, or a response after Leg2 closed — which plans nothing, so the
 * final value still proves each leg ran once.
 */
import {
  isLeg2Closed,
  LEG1_ENTRY,
  LEG1_EXIT,
  LEG2_ENTRY,
  LEG2_FINAL_EXIT,
  LEG2_PENDING_EXIT,
  readLeg1Entry,
  SEMAPHORE_INITIAL,
} from '../core/semaphore.js';
import type { CounterRef } from '../store/records.js';
import type { ActivityAddress } from './messages.js';
import type { Step } from './step.js';

/** The activity-level counter holding the semaphore. */
export const SEMAPHORE_FIELD = 'sem';

/**
 * The counter holding a revert's own semaphore: a revert is a second run of its
 * activity's thread (one Leg1 when it starts, one final Leg2 result), counted apart from
 * the run it undoes.
 */
export const REVERT_SEMAPHORE_FIELD = 'revert-sem';

function ref(step: Step, address: ActivityAddress, field: string): CounterRef {
  return { job: step.job.id, activity: address.a, dimension: address.d, field };
}

/**
 * Leg1 in one add: its entry and exit together, which commit together anyway (the whole
 * step is one transaction), so the stored value is the same as after two adds. Returns
 * false (planning nothing) when Leg1 already ran for this activity and dimension.
 */
export async function passLeg1(
  step: Step,
  address: ActivityAddress,
  field = SEMAPHORE_FIELD,
): Promise<boolean> {
  const value = (await step.counter(ref(step, address, field))) ?? SEMAPHORE_INITIAL;
  if (readLeg1Entry(value + LEG1_ENTRY) === 'done') return false;
  await step.addCounter(ref(step, address, field), LEG1_ENTRY + LEG1_EXIT, SEMAPHORE_INITIAL);
  return true;
}

/**
 * A Leg2 input in one add: its entry and its exit (`pending` keeps Leg2 open, `final`
 * closes it). Returns the dimensional-thread index, or undefined (planning nothing) when
 * Leg2 was already closed.
 */
export async function passLeg2(
  step: Step,
  address: ActivityAddress,
  exit: 'pending' | 'final',
  field = SEMAPHORE_FIELD,
): Promise<bigint | undefined> {
  const value = (await step.counter(ref(step, address, field))) ?? SEMAPHORE_INITIAL;
  const afterEntry = value + LEG2_ENTRY;
  if (isLeg2Closed(afterEntry)) return undefined;
  const exitDelta = exit === 'pending' ? LEG2_PENDING_EXIT : LEG2_FINAL_EXIT;
  await step.addCounter(ref(step, address, field), LEG2_ENTRY + exitDelta, SEMAPHORE_INITIAL);
  return (afterEntry / 1_000_000n) % 1_000_000n;
}
