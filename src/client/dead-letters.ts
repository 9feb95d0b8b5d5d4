/**
 * Requeueing a dead letter: in one transaction the job the dead letter ended is reopened
 * (RUNNING again, its activity back where it stood) and the message goes back to its
 * stream with its delivery count reset, so a worker runs it again and the job can finish.
 */
import { NotFoundError } from '../core/errors.js';
import type { Models } from '../models/models.js';
import { enqueueStart } from '../store/queue-admission.js';
import { queuePlacement } from '../store/queue-placement.js';
import type { DeadLetter } from '../store/records.js';
import type { Store } from '../store/store.js';
import { reopenDeadLetteredJob } from '../worker/dead-letters.js';

/** What a requeue did. */
export interface Requeued {
  /** The dead letter, as it was. */
  deadLetter: DeadLetter;
  /** The id of the message it became again. */
  messageId: string;
  /** True when its job, which it had ended in FAILURE, is RUNNING again. */
  reopened: boolean;
}

/** Requeues dead letter `id`; `NotFoundError` when there is none. */
export async function requeueDeadLetter(
  store: Store,
  models: Models,
  id: string,
  now: () => number,
): Promise<Requeued> {
  return store.transaction(async (tx) => {
    const deadLetter = await tx.getDeadLetter(id);
    if (!deadLetter) throw new NotFoundError('dead letter', id);
    const reopened = await reopenDeadLetteredJob(tx, models, deadLetter);
    const messageId = await tx.requeueDeadLetter(id);
    if (messageId === undefined) throw new NotFoundError('dead letter', id);
    // A job that ended gave up its queue slot: reopened, it takes one again (or waits in
    // line for one, its work parked) where it first waited, never around the limits.
    const job = deadLetter.job;
    if (reopened && job !== null && !(await tx.getQueueItem(job))) {
      const placement = await queuePlacement(tx, job);
      if (placement) {
        const at = now();
        await enqueueStart(tx, job, placement, at, at, { drops: false });
      }
    }
    return { deadLetter, messageId, reopened };
  });
}
