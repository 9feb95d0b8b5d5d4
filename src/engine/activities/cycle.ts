/**
 * cycle: re-enters its ancestor in a new dimensional thread (seed 001), up to `max`
 * times over the job's life. Each re-entry moves every activity downstream of the
 * ancestor that has finished back to pending (an add per digit) and enqueues the
 * ancestor in dimension `<cycle>#<n>`, where semaphores and join counters start fresh.
 * A loop exits by a conditional transition before its cycle activity; a cycle asked to
 * re-enter more than `max` times errors instead, taking its `on: error` transition.
 */
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import { finishActivity } from '../finish-activity.js';
import { enter } from '../transitions.js';
import type { ActivityKind } from './activity-kind.js';

const FINISHED = new Set<number>([
  COLLATION_DIGITS.completed,
  COLLATION_DIGITS.errored,
  COLLATION_DIGITS.released,
  COLLATION_DIGITS.skipped,
]);

/** The cycle kind's Leg1. */
export const cycle: ActivityKind = {
  async enter(step, address) {
    const activity = step.activity(address.a);
    await step.move(address.a, COLLATION_DIGITS.started);
    const iteration = await step.addCounter(
      { job: step.job.id, activity: address.a, field: 'iterations' },
      1n,
    );
    const max = BigInt(activity.max ?? 100);
    if (iteration > max) {
      // Past its limit a cycle errors; an `on: error` transition is its exit.
      await finishActivity(step, address, {
        outcome: 'error',
        error: {
          name: 'CycleLimitError',
          code: 'CYCLE_LIMIT',
          message: `cycle ${activity.id} reached its limit of ${max} re-entries`,
        },
      });
      return;
    }
    await step.move(address.a, COLLATION_DIGITS.completed);
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'SUCCESS',
      output: { iteration: Number(iteration) },
      startedAt: step.clock.now(),
      finishedAt: step.clock.now(),
    });
    for (const id of step.wf.reentered.get(address.a) ?? []) {
      if (FINISHED.has(await step.digit(id))) await step.move(id, COLLATION_DIGITS.pending);
    }
    enter(step, activity.ancestor as string, `${address.a}#${iteration}`);
  },
};
