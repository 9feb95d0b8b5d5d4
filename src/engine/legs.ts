/**
 * The two legs of seed 001, applied to an activity's semaphore with atomic adds inside
 * the step's transaction. Leg1 runs when an activity's `enter` message is dequeued; Leg2
 * runs once per worker response (a task result, a signal, a timer, a child's end).
 *
 * Because a whole step commits or rolls back as one, a crash can never leave Leg1
 * half-done (`799…`): the entry add rolls back with everything else. What the semaphore
 * does catch is a second delivery of the same work — a duplicated message, or a response
 * after Leg2 closed. Those adds are rolled back in the same transaction, so the final
 * value still proves each leg ran once.
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

function ref(step: Step, address: ActivityAddress): CounterRef {
  return { job: step.job.id, activity: address.a, dimension: address.d, field: SEMAPHORE_FIELD };
}

/**
 * Begins Leg1. Returns false (and undoes its add) when Leg1 already ran for this
 * activity and dimension, so the caller only acks.
 */
export async function beginLeg1(step: Step, address: ActivityAddress): Promise<boolean> {
  const value = await step.tx.addCounter(ref(step, address), LEG1_ENTRY, SEMAPHORE_INITIAL);
  if (readLeg1Entry(value) === 'done') {
    await step.tx.addCounter(ref(step, address), -LEG1_ENTRY);
    return false;
  }
  return true;
}

/** Ends Leg1. */
export async function endLeg1(step: Step, address: ActivityAddress): Promise<void> {
  await step.tx.addCounter(ref(step, address), LEG1_EXIT);
}

/**
 * Begins a Leg2 input. Returns the dimensional-thread index (the entry count), or
 * undefined (and undoes its add) when Leg2 is already closed.
 */
export async function beginLeg2(step: Step, address: ActivityAddress): Promise<bigint | undefined> {
  const value = await step.tx.addCounter(ref(step, address), LEG2_ENTRY, SEMAPHORE_INITIAL);
  if (isLeg2Closed(value)) {
    await step.tx.addCounter(ref(step, address), -LEG2_ENTRY);
    return undefined;
  }
  return (value / 1_000_000n) % 1_000_000n;
}

/** Ends a Leg2 input: `pending` keeps Leg2 open, `final` closes it. */
export async function endLeg2(
  step: Step,
  address: ActivityAddress,
  kind: 'pending' | 'final',
): Promise<void> {
  await step.tx.addCounter(
    ref(step, address),
    kind === 'pending' ? LEG2_PENDING_EXIT : LEG2_FINAL_EXIT,
  );
}

/**
 * Leg1 in one add: its entry and exit together, which commit together anyway (the whole
 * step is one transaction), so the stored value is the same as after two adds. Returns
 * false (and undoes the add) when Leg1 already ran for this activity and dimension.
 */
export async function passLeg1(step: Step, address: ActivityAddress): Promise<boolean> {
  const delta = LEG1_ENTRY + LEG1_EXIT;
  const value = await step.tx.addCounter(ref(step, address), delta, SEMAPHORE_INITIAL);
  if (readLeg1Entry(value - LEG1_EXIT) === 'done') {
    await step.tx.addCounter(ref(step, address), -delta);
    return false;
  }
  return true;
}

/**
 * A Leg2 input in one add: its entry and its exit (`pending` keeps Leg2 open, `final`
 * closes it). Returns the dimensional-thread index, or undefined (and undoes the add)
 * when Leg2 was already closed.
 */
export async function passLeg2(
  step: Step,
  address: ActivityAddress,
  exit: 'pending' | 'final',
): Promise<bigint | undefined> {
  const exitDelta = exit === 'pending' ? LEG2_PENDING_EXIT : LEG2_FINAL_EXIT;
  const delta = LEG2_ENTRY + exitDelta;
  const afterEntry =
    (await step.tx.addCounter(ref(step, address), delta, SEMAPHORE_INITIAL)) - exitDelta;
  if (isLeg2Closed(afterEntry)) {
    await step.tx.addCounter(ref(step, address), -delta);
    return undefined;
  }
  return (afterEntry / 1_000_000n) % 1_000_000n;
}
