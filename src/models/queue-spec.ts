/**
 * A queue as a user declares it — in code (`defineQueue`, a worker's `queues`), or on
 * the command line (`weft queue create`) — checked once, and stored. Declaring a queue
 * again replaces its limits and keeps its rate limiter's state.
 */
import {
  type CheckedQueue,
  checkQueue,
  QUEUE_LIMITS,
  type QueueSpec,
} from '../core/queue-rules.js';
import type { QueueRecord } from '../store/records.js';
import type { StoreTx } from '../store/store.js';

export { type CheckedQueue, checkQueue, type QueueSpec };

/** A queue declared in code, marked so a worker module's exports are found. */
export type QueueDefinition = CheckedQueue & { readonly kind: 'queue' };

/** Declares a queue in code, checked at once. Give it to a worker's `queues`, or export it from a `weft worker --handlers` module. */
export function defineQueue(spec: QueueSpec): QueueDefinition {
  return Object.freeze({ ...checkQueue(spec), kind: 'queue' as const });
}

/** What declaring did. */
export type QueueDeclareStatus = 'created' | 'updated' | 'unchanged';

/** Stores a checked queue in `tx`. */
export async function declareQueue(
  tx: StoreTx,
  spec: CheckedQueue,
  now: number,
  source: string,
): Promise<{ queue: QueueRecord; status: QueueDeclareStatus }> {
  const stored = await tx.lockQueue(spec.name);
  if (stored && QUEUE_LIMITS.every((f) => stored[f] === spec[f])) {
    return { queue: stored, status: 'unchanged' };
  }
  const queue: QueueRecord = {
    name: spec.name,
    concurrency: spec.concurrency,
    keyConcurrency: spec.keyConcurrency,
    rateLimit: spec.rateLimit,
    ratePeriodMs: spec.ratePeriodMs,
    agingMs: spec.agingMs,
    keyRateLimit: spec.keyRateLimit,
    keyRatePeriodMs: spec.keyRatePeriodMs,
    throttle: spec.throttle,
    rateTat: stored?.rateTat ?? 0,
    keyTats: stored?.keyTats ?? {},
    lastKey: stored?.lastKey ?? null,
    waits: stored?.waits ?? { count: 0, sumMs: 0, buckets: [] },
    source,
    createdAt: stored?.createdAt ?? now,
    updatedAt: now,
  };
  await tx.putQueue(queue);
  return { queue, status: stored ? 'updated' : 'created' };
}
