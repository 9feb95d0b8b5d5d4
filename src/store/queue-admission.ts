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
 *   `rateLimit` at once; the excess waits (never dropped).
 */
import { QUEUED_STREAM } from './queue-rules.js';
import type { QueueItem, QueueRecord } from './records.js';
import type { StoreTx } from './store.js';

/** How many waiting items one admission reads (per order: by priority, and oldest). */
export const ADMISSION_WINDOW = 500;

/** What an admission does. */
export interface AdmissionPlan {
  /** Jobs to admit, in the order they were picked. */
  admit: string[];
  /** The rate limiter's state after those starts. */
  rateTat: number;
  /** The key admitted last (the queue's as it was, when none was). */
  lastKey: string | null;
  /** When the rate limit lets the next start through, when it held one back. */
  rateWaitUntil?: number;
}

/** The limits of a queue the store has no row for: none. */
const UNLIMITED: Pick<
  QueueRecord,
  | 'concurrency'
  | 'keyConcurrency'
  | 'rateLimit'
  | 'ratePeriodMs'
  | 'agingMs'
  | 'rateTat'
  | 'lastKey'
> = {
  concurrency: null,
  keyConcurrency: null,
  rateLimit: null,
  ratePeriodMs: null,
  agingMs: 0,
  rateTat: 0,
  lastKey: null,
};

/** Plans an admission at `now` (pure). */
export function planAdmission(
  queue: typeof UNLIMITED,
  waiting: readonly QueueItem[],
  running: readonly { key: string; running: number }[],
  now: number,
): AdmissionPlan {
  const perKey = new Map(running.map((r) => [r.key, Number(r.running)]));
  let free =
    queue.concurrency === null
      ? Number.POSITIVE_INFINITY
      : queue.concurrency - [...perKey.values()].reduce((a, b) => a + b, 0);
  let tat = queue.rateTat;
  const plan: AdmissionPlan = { admit: [], rateTat: tat, lastKey: queue.lastKey };
  if (free <= 0 || waiting.length === 0) return plan;
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
  const rate =
    queue.rateLimit !== null && queue.ratePeriodMs !== null && queue.rateLimit > 0
      ? { interval: queue.ratePeriodMs / queue.rateLimit, tolerance: queue.ratePeriodMs }
      : undefined;
  for (const level of [...levels.keys()].sort((a, b) => a - b)) {
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
        const item = line.shift();
        if (!item) continue;
        if (rate) {
          const start = Math.max(tat, now);
          // A start is allowed while the limiter is less than a period ahead of now.
          if (start + rate.interval - now > rate.tolerance) {
            plan.rateWaitUntil = Math.ceil(start + rate.interval - rate.tolerance);
            plan.rateTat = tat;
            return plan;
          }
          tat = start + rate.interval;
        }
        plan.admit.push(item.job);
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
  return plan;
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
  if (queue && (plan.rateTat !== queue.rateTat || plan.lastKey !== queue.lastKey)) {
    await tx.putQueue({ ...queue, rateTat: plan.rateTat, lastKey: plan.lastKey, updatedAt: now });
  }
  return {
    admitted: plan.admit,
    ...(plan.rateWaitUntil !== undefined && { rateWaitUntil: plan.rateWaitUntil }),
  };
}
