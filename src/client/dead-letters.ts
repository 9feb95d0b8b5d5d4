/**
 * Requeueing a dead letter: in one transaction the job the dead letter ended is reopened
 * (RUNNING again, its activity back where it stood) and the message goes back to its
 * stream with its delivery count reset, so a worker runs it again and the job can finish.
 */
import { NotFoundError } from '../core/errors.js';
import type { Models } from '../models/models.js';
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
): Promise<Requeued> {
  return store.transaction(async (tx) => {
    const deadLetter = await tx.getDeadLetter(id);
    if (!deadLetter) throw new NotFoundError('dead letter', id);
    const reopened = await reopenDeadLetteredJob(tx, models, deadLetter);
    const messageId = await tx.requeueDeadLetter(id);
    if (messageId === undefined) throw new NotFoundError('dead letter', id);
    return { deadLetter, messageId, reopened };
  });
}
