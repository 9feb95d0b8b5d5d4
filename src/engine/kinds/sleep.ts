/**
 * sleep: a durable timer. Leg1 starts it (9→8) and schedules a wake-up in the store;
 * the wake-up is Leg2 and completes it (8→6). A process that dies while a job sleeps
 * loses nothing: the timer fires in whichever process looks next.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { parseDuration } from '../../graph/durations.js';
import { neverFails } from '../../graph/kind-spec.js';
import { description, duration, join } from '../../graph/workflow-document.js';
import type { Json } from '../../store/records.js';
import { finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import { type ActivityAddress, ENGINE_STREAM } from '../messages.js';
import type { Step } from '../step.js';
import { defineKind } from './activity-kind.js';

/** A compiled sleep. */
export interface CompiledSleep extends CompiledActivityBase {
  kind: 'sleep';
  /** How long it sleeps. */
  durationMs: number;
}

/** The sleep kind. */
export const sleep = defineKind({
  kind: 'sleep',
  document: z.strictObject({
    kind: z.literal('sleep'),
    duration: duration.meta({ description: 'How long to sleep.' }),
    join: join.optional(),
    description: description.optional(),
  }),
  durations: ['duration'],
  compile: (doc, base): CompiledSleep => ({
    ...base,
    kind: 'sleep',
    durationMs: parseDuration(doc.duration) ?? 0,
  }),
  outcomeProblem: neverFails,
  respond: { wake: respondWake },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    const at = step.clock.now() + activity.durationMs;
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'RUNNING',
      input: { until: at },
      startedAt: step.clock.now(),
      finishedAt: null,
    });
    step.scheduleTimer({
      key: `sleep:${address.job}:${address.a}:${address.d}`,
      at,
      message: {
        stream: ENGINE_STREAM,
        job: step.job.id,
        payload: { k: 'wake', ...address } as unknown as Json,
      },
    });
  },
});

/** Leg2 of a sleep: the timer fired. False when Leg2 was already closed. */
async function respondWake(step: Step, message: ActivityAddress): Promise<boolean> {
  const address = { job: message.job, a: message.a, d: message.d };
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  await finishActivity(step, address, { outcome: 'success', output: { wokeAt: step.clock.now() } });
  return true;
}
