/**
 * A claim of task attempts through a queue (a task that names a queue: `defineTask(…, {
 * queue })`, a Worker's `taskQueues`, `weft worker --task-queue charge=payments`). The
 * queue's limits hold over the attempts of every task that names it, across every
 * worker, as they hold over the jobs started in it:
 *
 * - `concurrency` and `keyConcurrency` count the attempts the queue holds: messages
 *   claimed through it whose lease lives (the store keeps the queue and the key on the
 *   message while it is held, so a result's ack, a release for a retry, or a lease that
 *   runs out frees the slot);
 * - `rateLimit` and `keyRateLimit` are charged one start per attempt, retries included;
 *   an attempt over a rate waits, whatever the queue's `throttle` (an attempt is never
 *   dropped);
 * - keys take turns, as jobs' do (round robin from the key served last).
 *
 * Claims through one queue run one after the other, under the queue's lock (its row,
 * FOR UPDATE on PostgreSQL; SQLite has one writer). A queue with no row has no limits.
 * A job in the queue and a task attempt in it do not share slots (a job holds its slot
 * while its tasks run: sharing would let a full queue of jobs starve their own tasks),
 * but they share its rate limiters. Attempt waits are added to the queue's histogram.
 */
import {
  type AdmissionQueue,
  changesQueue,
  planAdmission,
  UNLIMITED,
  withPlan,
} from './queue-admission.js';
import type { Json, QueueItem, StreamMessage } from './records.js';
import type { StoreTx } from './store.js';

/** How many claimable messages of a stream one claim through a queue reads at a time. */
export const QUEUED_CLAIM_WINDOW = 200;
/**
 * How many it looks at in all before it gives up for now: when the oldest are all of
 * keys at their limits, it reads on past them (a window at a time) to the keys that have
 * room, so one busy key does not hide the others behind it.
 */
export const QUEUED_CLAIM_SCAN = 2_000;

/** A task's queue, as the worker that claims its attempts knows it. */
export interface TaskQueuePlace {
  queue: string;
  /** The attempt's key for per-key limits, from its task message's payload (`''`: none). */
  keyOf?: (payload: Json) => string | Promise<string>;
}

/** What {@link claimThroughQueue} did. */
export interface QueuedClaim {
  claimed: StreamMessage[];
  /** When a rate limit lets the next attempt through, when one held an attempt back. */
  rateWaitUntil?: number;
}

/**
 * Claims up to `max` messages of task stream `stream` for `consumer` through `place`'s
 * queue, in `tx`, at `now`: as many as the queue's limits leave room for.
 */
export async function claimThroughQueue(
  tx: StoreTx,
  stream: string,
  place: TaskQueuePlace,
  options: { consumer: string; leaseMs: number; max: number },
  now: number,
): Promise<QueuedClaim> {
  if (options.max <= 0) return { claimed: [] };
  const queue = await tx.lockQueue(place.queue);
  const window = Math.min(QUEUED_CLAIM_WINDOW, options.max * 8 + 8);
  let page = await tx.claimableMessages(stream, now, window);
  if (page.length === 0) return { claimed: [] };
  const held = await tx.queueHeld(place.queue, now);
  // Attempts wait for a rate, never dropped: a drop queue's rates apply here too.
  const limits: AdmissionQueue = queue ? { ...queue, throttle: 'wait' } : UNLIMITED;
  const keys = new Map<string, string>();
  const items: QueueItem[] = [];
  let plan: ReturnType<typeof planAdmission>;
  for (;;) {
    for (const message of page) {
      const key = place.keyOf ? await place.keyOf(message.payload) : '';
      keys.set(message.id, key);
      items.push({
        job: message.id,
        queue: place.queue,
        key,
        priority: 0,
        seq: items.length,
        state: 'waiting',
        enqueuedAt: message.createdAt,
        availableAt: message.availableAt,
        admittedAt: null,
      });
    }
    plan = planAdmission(limits, items, held, now, options.max);
    // Read on only while what was read leaves room it cannot fill: a full window whose
    // keys are all at their limits. A rate that holds back every key (the queue's own,
    // with no per-key rate) would hold back the rest too.
    const last = page.at(-1);
    if (
      plan.admit.length >= options.max ||
      page.length < window ||
      (plan.rateWaitUntil !== undefined && limits.keyRateLimit === null) ||
      items.length >= QUEUED_CLAIM_SCAN ||
      !last
    ) {
      break;
    }
    page = await tx.claimableMessages(stream, now, window, last);
  }
  const claimed =
    plan.admit.length === 0
      ? []
      : await tx.claimQueued(
          stream,
          plan.admit.map((id) => ({ id, key: keys.get(id) ?? '' })),
          { consumer: options.consumer, leaseMs: options.leaseMs, queue: place.queue },
        );
  if (queue && changesQueue(queue, plan)) {
    await tx.putQueue(withPlan(queue, plan, now));
  }
  return {
    claimed,
    ...(plan.rateWaitUntil !== undefined && { rateWaitUntil: plan.rateWaitUntil }),
  };
}
