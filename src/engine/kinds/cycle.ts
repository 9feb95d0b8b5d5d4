/**
 * cycle: re-enters its ancestor in a new dimensional thread (seed 001), up to `max`
 * times over the job's life. Each re-entry moves every activity downstream of the
 * ancestor that has finished back to pending (an add per digit) and enqueues the
 * ancestor in dimension `<cycle>#<n>`, where semaphores and join counters start fresh.
 * A loop exits by a conditional transition before its cycle activity; a cycle asked to
 * re-enter more than `max` times errors instead, taking its `on: error` transition.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { description, join, reference } from '../../graph/workflow-document.js';
import { finishActivity } from '../finish-activity.js';
import { childThread, reentryParent } from '../threads.js';
import { enter } from '../transitions.js';
import { defineKind } from './activity-kind.js';

/** Default most re-entries of a cycle activity. */
export const DEFAULT_CYCLE_MAX = 100;

/** A compiled cycle. */
export interface CompiledCycle extends CompiledActivityBase {
  kind: 'cycle';
  /** The upstream activity it re-enters. */
  ancestor: string;
  /** The most re-entries over the job's life. */
  max: number;
}

const FINISHED = new Set<number>([
  COLLATION_DIGITS.completed,
  COLLATION_DIGITS.errored,
  COLLATION_DIGITS.released,
  COLLATION_DIGITS.skipped,
]);

/** The cycle kind. */
export const cycle = defineKind({
  kind: 'cycle',
  document: z.strictObject({
    kind: z.literal('cycle'),
    ancestor: reference.meta({ description: 'The upstream activity to re-enter.' }),
    max: z
      .number()
      .int()
      .min(1)
      .max(999_999)
      .optional()
      .meta({ description: 'Most re-entries (default 100).' }),
    join: join.optional(),
    description: description.optional(),
  }),
  references: ['ancestor'],
  compile: (doc, base): CompiledCycle => ({
    ...base,
    kind: 'cycle',
    ancestor: doc.ancestor,
    max: doc.max ?? DEFAULT_CYCLE_MAX,
  }),
  outcomeProblem: (on) =>
    on === 'error'
      ? undefined
      : `a cycle activity re-enters its ancestor and has no ${on} outcome; its only transitions are on: error (taken when max is exceeded)`,
  check({ id, fields }, { trigger, draft, reach }, problems) {
    if (typeof fields.ancestor !== 'string') return;
    const ancestor = fields.ancestor;
    const at = ['activities', id, 'ancestor'];
    if (!draft.activities.has(ancestor)) {
      problems.add(at, `ancestor ${JSON.stringify(ancestor)} is not an activity`);
    } else if (ancestor === id) {
      problems.add(at, 'a cycle activity cannot re-enter itself');
    } else if (ancestor === trigger) {
      problems.add(at, `a cycle cannot re-enter the trigger ${JSON.stringify(ancestor)}`);
    } else if (!reach(ancestor).has(id)) {
      problems.add(
        at,
        `ancestor ${JSON.stringify(ancestor)} is not upstream of ${JSON.stringify(id)}`,
      );
    }
  },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    const iteration = await step.addCounter(
      { job: step.job.id, activity: address.a, field: 'iterations' },
      1n,
    );
    const max = BigInt(activity.max);
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
    // A cycle runs and succeeds in one step: RUNNING then SUCCESS, as the task machine goes.
    step.putActivity({ activity: address.a, dimension: address.d, status: 'RUNNING' });
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
    await enter(
      step,
      activity.ancestor,
      childThread(reentryParent(address.d, address.a), address.a, iteration),
    );
  },
});
