/**
 * What every activity kind implements: the body of Leg1, run once per activity and
 * dimension between the semaphore's entry and exit adds.
 */
import type { ActivityAddress } from '../messages.js';
import type { Step } from '../step.js';

/** One activity kind's Leg1. Leg2 responses are handled by the kind's own exports. */
export interface ActivityKind {
  enter(step: Step, address: ActivityAddress): Promise<void>;
}
