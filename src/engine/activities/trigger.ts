/**
 * trigger: the first activity of every graph. Its Leg1 completes at once with the job
 * input as its output, and its transitions fire.
 */
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import { finishActivity } from '../finish-activity.js';
import type { ActivityKind } from './activity-kind.js';

/** The trigger kind. */
export const trigger: ActivityKind = {
  async enter(step, address) {
    await step.move(address.a, COLLATION_DIGITS.started);
    await finishActivity(step, address, { outcome: 'success', output: step.job.input });
  },
};
