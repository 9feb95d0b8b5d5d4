/**
 * sleep: a durable timer. Leg1 starts it (9→8) and schedules a wake-up in the store;
 * the wake-up is Leg2 and completes it (8→6). A process that dies while a job sleeps
 * loses nothing: the timer fires in whichever process looks next.
 */
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { Json } from '../../store/records.js';
import { finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import { type ActivityAddress, ENGINE_STREAM } from '../messages.js';
import type { Step } from '../step.js';
import type { ActivityKind } from './activity-kind.js';

/** The sleep kind's Leg1. */
export const sleep: ActivityKind = {
  async enter(step, address) {
    const activity = step.activity(address.a);
    await step.move(address.a, COLLATION_DIGITS.started);
    const at = step.clock.now() + (activity.durationMs ?? 0);
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
};

/** Leg2 of a sleep: the timer fired. False when Leg2 was already closed. */
export async function respondWake(step: Step, address: ActivityAddress): Promise<boolean> {
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  await finishActivity(step, address, { outcome: 'success', output: { wokeAt: step.clock.now() } });
  return true;
}
