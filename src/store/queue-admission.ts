/**
 * Admitting a queue's waiting jobs to its free slots: which ones, planned in memory
 * (`planAdmission`), then applied in one transaction under the queue's lock
 * (`admitQueue`): the items move to running and the messages parked for each job go
 * back to their streams. The rules:
 *
 * - at most `concurrency` running in all, and `keyConcurrency` per key;
 * - lower priority first, first in first out within a priority; a job that has waited
 *   `agingMs` counts as one priority higher, and one more for each `agingMs` again, so a
 *   low priority is late under load but never starved;
 * - within a priority, keys take turns: one job per key per round, keys in name order
 *   from the one after the key admitted last (kept on the queue across admissions), so
 *   one busy key cannot starve the others;
 * - at most `rateLimit` starts per `ratePeriodMs`, by the generic cell rate algorithm:
 *   starts are spaced `ratePeriodMs / rateLimit` apart on average, with a burst of up to
 *   `rateLimit` at once; the excess waits. `keyRateLimit` per `keyRatePeriodMs` is the
 *   same per key: a key past its rate sits out while the other keys go on. A queue whose
 *   `throttle` is `drop` charges its rates when a start comes instead (`chargeRates`),
 *   refusing the excess, and admits by slots alone.
 *
 * Each admission adds the waits of the jobs it admits to the queue's histogram.
 */
import { ConflictError } from '../core/errors.js';
import { Issued } from './issued.js';
import { queuedLine } from './queue-placement.js';
import { QUEUE_WAIT_BOUNDS_S, QUEUED_STREAM } from './queue-rules.js';
import type { NewQueueItem, QueueItem, QueueRecord, QueueWaits } from './records.js';
import type { StoreTx } from './store.js';

/** How many waiting items one admission reads (per order: by priority, and oldest). */
export const ADMISSION_WINDOW = 500;

/** What an admission does. */
export interface AdmissionPlan {
  /** Jobs to admit, in the order they were picked. */
  admit: string[];
  /** The rate limiter's state after those starts. */
  rateTat: number;
  /** The per-key rate limiters' state after them (keys no longer held back left out). */
  keyTats: Record<string, number>;
  /** The key admitted last (the queue's as it was, when none was). */
  lastKey: string | null;
  /** The queue's waits with those of the jobs admitted added. */
  waits: QueueWaits;
  /** When a rate limit lets the next start through, when one held a start back. */
  rateWaitUntil?: number;
}

/** What an admission reads of a queue: its limits and its state. */
export type AdmissionQueue = Pick<
  QueueRecord,
  | 'concurrency'
  | 'keyConcurrency'
  | 'rateLimit'
  | 'ratePeriodMs'
  | 'keyRateLimit'
  | 'keyRatePeriodMs'
  | 'throttle'
  | 'agingMs'
  | 'rateTat'
  | 'keyTats'
  | 'lastKey'
  | 'waits'
>;

/** The limits of a queue the store has no row for: none. */
export const UNLIMITED: AdmissionQueue = {
  concurrency: null,
  keyConcurrency: null,
  rateLimit: null,
  ratePeriodMs: null,
  keyRateLimit: null,
  keyRatePeriodMs: null,
  throttle: 'wait',
  agingMs: 0,
  rateTat: 0,
  keyTats: {},
  lastKey: null,
  waits: { count: 0, sumMs: 0, buckets: [] },
};

/**
 * One start through a generic cell rate limiter of `limit` per `periodMs` whose state is
 * `tat` (the theoretical arrival time of the next start): the state after it, or — when
 * the limiter holds it back — when it would let it through. A start is allowed while the
 * limiter is less than a period ahead of `now`: starts are spaced `periodMs / limit`
 * apart on average, with a burst of up to `limit` at once.
 */
export function throughRate(
  tat: number,
  now: number,
  limit: number,
  periodMs: number,
  force = false,
): { tat: number } | { waitUntil: number } {
  const interval = periodMs / limit;
  const start = Math.max(tat, now);
  if (!force && start + interval - now > periodMs)
    return { waitUntil: Math.ceil(start + interval - periodMs) };
  return { tat: start + interval };
}

/** The limiter states of `tats` still ahead of `now` (the others hold nothing back). */
function liveTats(tats: Record<string, number>, now: number): Record<string, number> {
  return Object.fromEntries(Object.entries(tats).filter(([, tat]) => tat > now));
}

/** `waits` with the waits of `items`, admitted at `now`, added. */
export function addWaits(waits: QueueWaits, items: readonly QueueItem[], now: number): QueueWaits {
  if (items.length === 0) return waits;
  const buckets = QUEUE_WAIT_BOUNDS_S.map((_, i) => waits.buckets[i] ?? 0);
  let sumMs = waits.sumMs;
  for (const item of items) {
    const waited = Math.max(0, now - Math.max(item.enqueuedAt, item.availableAt));
    sumMs += waited;
    QUEUE_WAIT_BOUNDS_S.forEach((bound, i) => {
      if (waited <= bound * 1000) buckets[i] = (buckets[i] ?? 0) + 1;
    });
  }
  return { count: waits.count + items.length, sumMs, buckets };
}

/**
 * Plans an admission at `now` (pure), of `room` items at most. A queue whose `throttle`
 * is `drop` charged its rate limits when each start came (`chargeRates`), so its
 * admission checks none.
 */
export function planAdmission(
  queue: AdmissionQueue,
  waiting: readonly QueueItem[],
  running: readonly { key: string; running: number }[],
  now: number,
  room = Number.POSITIVE_INFINITY,
): AdmissionPlan {
  const perKey = new Map(running.map((r) => [r.key, Number(r.running)]));
  let free = Math.min(
    room,
    queue.concurrency === null
      ? Number.POSITIVE_INFINITY
      : queue.concurrency - [...perKey.values()].reduce((a, b) => a + b, 0),
  );
  let tat = queue.rateTat;
  const keyTats = liveTats(queue.keyTats, now);
  const plan: AdmissionPlan = {
    admit: [],
    rateTat: tat,
    keyTats,
    lastKey: queue.lastKey,
    waits: queue.waits,
  };
  if (free <= 0 || waiting.length === 0) return plan;
  const holdUntil = (at: number) => {
    plan.rateWaitUntil = Math.min(plan.rateWaitUntil ?? Number.POSITIVE_INFINITY, at);
  };
  const effective = (item: QueueItem) =>
    queue.agingMs > 0
      ? item.priority - Math.floor((now - item.enqueuedAt) / queue.agingMs)
      : item.priority;
  // Levels of effective priority, each a round-robin over its keys.
  const levels = new Map<number, Map<string, QueueItem[]>>();
  for (const item of [...waiting].sort((a, b) => a.seq - b.seq)) {
    const level = effective(item);
    const keys = levels.get(level) ?? new Map<string, QueueItem[]>();
    levels.set(level, keys);
    const line = keys.get(item.key) ?? [];
    keys.set(item.key, line);
    line.push(item);
  }
  const charged = queue.throttle === 'drop';
  const rate = !charged && queue.rateLimit !== null && queue.ratePeriodMs !== null;
  const keyRate = !charged && queue.keyRateLimit !== null && queue.keyRatePeriodMs !== null;
  const admitted: QueueItem[] = [];
  admission: for (const level of [...levels.keys()].sort((a, b) => a - b)) {
    const keys = levels.get(level) as Map<string, QueueItem[]>;
    // Keys in name order, the turn starting after the key admitted last.
    const sorted = [...keys.keys()].sort();
    const last = plan.lastKey;
    let open =
      last === null
        ? sorted
        : [...sorted.filter((k) => k > last), ...sorted.filter((k) => k <= last)];
    while (open.length > 0 && free > 0) {
      const next: string[] = [];
      for (const key of open) {
        if (free <= 0) break;
        const held = perKey.get(key) ?? 0;
        const line = keys.get(key) as QueueItem[];
        if (queue.keyConcurrency !== null && held >= queue.keyConcurrency) continue;
        if (line.length === 0) continue;
        let keyTat: number | undefined;
        if (keyRate) {
          // A key past its own rate sits this admission out; the other keys go on.
          const through = throughRate(
            keyTats[key] ?? 0,
            now,
            queue.keyRateLimit as number,
            queue.keyRatePeriodMs as number,
          );
          if ('waitUntil' in through) {
            holdUntil(through.waitUntil);
            continue;
          }
          keyTat = through.tat;
        }
        if (rate) {
          const through = throughRate(
            tat,
            now,
            queue.rateLimit as number,
            queue.ratePeriodMs as number,
          );
          if ('waitUntil' in through) {
            // The queue's rate holds every key back.
            holdUntil(through.waitUntil);
            break admission;
          }
          tat = through.tat;
        }
        const item = line.shift() as QueueItem;
        if (keyTat !== undefined) keyTats[key] = keyTat;
        plan.admit.push(item.job);
        admitted.push(item);
        plan.lastKey = key;
        perKey.set(key, held + 1);
        free--;
        if (line.length > 0) next.push(key);
      }
      open = next;
    }
    if (free <= 0) break;
  }
  plan.rateTat = tat;
  plan.waits = addWaits(queue.waits, admitted, now);
  return plan;
}

/**
 * Charges a start of key `key` to `queue`'s rate limits at `now`, as a queue whose
 * `throttle` is `drop` does when the start comes: the limiters' state after it, or — when
 * a limit is reached — when the next start of that key would be let through.
 */
export function chargeRates(
  queue: AdmissionQueue,
  key: string,
  now: number,
  force = false,
): { rateTat: number; keyTats: Record<string, number> } | { retryAt: number; limit: string } {
  let rateTat = queue.rateTat;
  const keyTats = liveTats(queue.keyTats, now);
  if (queue.rateLimit !== null && queue.ratePeriodMs !== null) {
    const through = throughRate(rateTat, now, queue.rateLimit, queue.ratePeriodMs, force);
    if ('waitUntil' in through) {
      return {
        retryAt: through.waitUntil,
        limit: `${queue.rateLimit} per ${queue.ratePeriodMs} ms`,
      };
    }
    rateTat = through.tat;
  }
  if (queue.keyRateLimit !== null && queue.keyRatePeriodMs !== null) {
    const through = throughRate(
      keyTats[key] ?? 0,
      now,
      queue.keyRateLimit,
      queue.keyRatePeriodMs,
      force,
    );
    if ('waitUntil' in through) {
      return {
        retryAt: through.waitUntil,
        limit: `${queue.keyRateLimit} per ${queue.keyRatePeriodMs} ms for key ${JSON.stringify(key)}`,
      };
    }
    keyTats[key] = through.tat;
  }
  return { rateTat, keyTats };
}

/**
 * Puts a job just started in `tx` in its queue. A queue whose `throttle` is `drop`
 * charges the start to its rate limits first, and refuses it (a ConflictError,
 * `RATE_LIMITED`, naming when a start would be let through) when a limit is reached:
 * the transaction rolls back, so nothing of it is stored. A start that must not be
 * refused (`drops: false`: a child job its parent's decision starts) is charged all the
 * same, pushing the limiter on, and waits for a slot. When nothing waits in line
 * and the queue has room for it now (its limits and rate, planned as a worker's
 * admission would), it is admitted at once, in this transaction, and runs as any job: a
 * queue that does not limit costs a few statements, not a hop through a worker.
 * Otherwise its messages are parked until a worker admits it, and it waits in line with
 * its key and priority.
 */
export async function enqueueStart(
  tx: StoreTx,
  job: string,
  options: { queue: string; key?: string | undefined; priority?: number | undefined },
  availableAt: number,
  now: number,
  policy: { drops: boolean } = { drops: true },
): Promise<void> {
  const item = {
    job,
    queue: options.queue,
    key: options.key ?? '',
    priority: options.priority ?? 0,
    availableAt,
  };
  // The lock and the reads behind it go in one round trip on a pipelining connection:
  // the reads run after the lock is granted, so they see what the lock holds still.
  const due = availableAt <= now;
  const reads = new Issued();
  const locking = reads.add(tx.lockQueue(item.queue));
  const line = due ? reads.add(tx.waitingItems(item.queue, now, 1)) : undefined;
  const running = due ? reads.add(tx.runningKeys(item.queue)) : undefined;
  await reads.settled();
  const queue = await locking;
  const charged =
    queue?.throttle === 'drop' ? chargedQueue(queue, item.key, now, policy.drops) : queue;
  const writes = new Issued();
  // Nothing waits in line and there is room now: admitted at once, in this transaction.
  const plan =
    charged && line && running && (await line).length === 0
      ? planAdmission(
          charged,
          [{ ...item, seq: 0, state: 'waiting', enqueuedAt: now, admittedAt: null }],
          await running,
          now,
        )
      : undefined;
  writes.add(tx.appendHistory([queuedLine(item, now)]));
  if (charged && plan && plan.admit.length > 0) {
    writes.add(tx.enqueue({ ...item, admittedAt: now }));
    writes.add(tx.putQueue(withPlan(charged, plan, now)));
  } else {
    if (charged && charged !== queue) writes.add(tx.putQueue(charged));
    writes.add(tx.parkMessages(job, QUEUED_STREAM));
    writes.add(tx.enqueue(item));
  }
  await writes.settled();
}

/**
 * `queue` with a start of `key` charged to its rates; when a limit is reached, a
 * ConflictError — or, for a start that is never dropped, the charge made all the same.
 */
function chargedQueue(queue: QueueRecord, key: string, now: number, drops: boolean): QueueRecord {
  const charge = chargeRates(queue, key, now, !drops);
  if ('retryAt' in charge) {
    throw new ConflictError(
      `queue ${queue.name} is at its rate limit (${charge.limit}) and drops what comes over it: try again from ${new Date(charge.retryAt).toISOString()}`,
      { code: 'RATE_LIMITED' },
    );
  }
  return { ...queue, ...charge, updatedAt: now };
}

/**
 * Charges jobs a step puts in line (a graph `await`'s children, `UnitOfWork.enqueue`) to
 * the rates of those of their queues whose `throttle` is `drop`, as `enqueueStart` charges
 * a child it is given: never refused, the limiter pushed on. Queues that wait charge at
 * admission instead, and are left alone. One lock and one write per queue.
 */
export async function chargeEnqueued(
  tx: StoreTx,
  items: readonly Pick<NewQueueItem, 'queue' | 'key' | 'availableAt'>[],
): Promise<void> {
  const names = [...new Set(items.map((item) => item.queue))];
  for (const name of names) {
    let queue = await tx.lockQueue(name);
    if (queue?.throttle !== 'drop') continue;
    for (const item of items) {
      if (item.queue === name) queue = chargedQueue(queue, item.key, item.availableAt, false);
    }
    await tx.putQueue(queue);
  }
}

/** Whether a plan changed the queue's state (so its row is written). */
export function changesQueue(queue: AdmissionQueue, plan: AdmissionPlan): boolean {
  return (
    plan.admit.length > 0 ||
    plan.rateTat !== queue.rateTat ||
    plan.lastKey !== queue.lastKey ||
    JSON.stringify(plan.keyTats) !== JSON.stringify(queue.keyTats)
  );
}

/** What `admitQueue` did. */
export interface Admission {
  admitted: string[];
  /** When to look again for a start the rate limit held back. */
  rateWaitUntil?: number;
}

/**
 * Admits what queue `name` has room for, in `tx`: locks the queue (admissions to one
 * queue run one at a time, on any worker), reads its waiting and running items, plans,
 * moves the admitted items to running and unparks their jobs' messages. A queue with no
 * row (deleted while jobs waited in it) has no limits.
 */
export async function admitQueue(tx: StoreTx, name: string, now: number): Promise<Admission> {
  const queue = await tx.lockQueue(name);
  const waiting = await tx.waitingItems(name, now, ADMISSION_WINDOW);
  if (waiting.length === 0) return { admitted: [] };
  const running = await tx.runningKeys(name);
  const plan = planAdmission(queue ?? UNLIMITED, waiting, running, now);
  if (plan.admit.length > 0) {
    await tx.admitItems(plan.admit, now);
    for (const job of plan.admit) await tx.unparkMessages(job, QUEUED_STREAM);
  }
  if (queue && changesQueue(queue, plan)) await tx.putQueue(withPlan(queue, plan, now));
  return {
    admitted: plan.admit,
    ...(plan.rateWaitUntil !== undefined && { rateWaitUntil: plan.rateWaitUntil }),
  };
}

/** `queue` with the state `plan` leaves it in. */
export function withPlan(queue: QueueRecord, plan: AdmissionPlan, now: number): QueueRecord {
  return {
    ...queue,
    rateTat: plan.rateTat,
    keyTats: plan.keyTats,
    lastKey: plan.lastKey,
    waits: plan.waits,
    updatedAt: now,
  };
}
