/**
 * The queue series of `/metrics`: per queue, the jobs holding a slot and waiting, the
 * attempts of tasks that name it running, the
 * longest wait, a histogram of how long admitted jobs waited (counted by the admissions,
 * kept on the queue's row), how long its rate limit holds the next start back, and how
 * many keys their own rate holds back.
 */
import { QUEUE_WAIT_BOUNDS_S } from '../../store/queue-rules.js';
import type { QueueKeyCount, QueueRecord } from '../../store/records.js';

/** A Prometheus label value, escaped. */
export const labelValue = (v: string) =>
  v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

interface QueueNow {
  running: number;
  waiting: number;
  /** Attempts of tasks that name the queue, running. */
  attempts: number;
  oldest: number | null;
  record?: QueueRecord;
}

/** How long a rate limiter in state `tat` holds the next start back at `now` (ms, 0: not). */
function rateDelayMs(tat: number, limit: number | null, periodMs: number | null, now: number) {
  if (limit === null || periodMs === null) return 0;
  return Math.max(0, tat + periodMs / limit - periodMs - now);
}

/** The lines of the queue series (none when there are no queues and no queued jobs). */
export function queueMetricLines(
  records: readonly QueueRecord[],
  counts: readonly QueueKeyCount[],
  now: number,
): string[] {
  const byQueue = new Map<string, QueueNow>();
  const of = (name: string) => {
    const q = byQueue.get(name) ?? { running: 0, waiting: 0, attempts: 0, oldest: null };
    byQueue.set(name, q);
    return q;
  };
  for (const record of records) of(record.name).record = record;
  for (const k of counts) {
    const q = of(k.queue);
    q.running += k.running;
    q.waiting += k.waiting;
    q.attempts += k.attempts ?? 0;
    if (k.oldestWaiting !== null) q.oldest = Math.min(q.oldest ?? k.oldestWaiting, k.oldestWaiting);
  }
  if (byQueue.size === 0) return [];
  const queues = [...byQueue].sort(([a], [b]) => (a < b ? -1 : 1));
  const label = (name: string) => `queue="${labelValue(name)}"`;
  const lines: string[] = [];
  const gauge = (name: string, help: string, pick: (q: QueueNow) => number) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const [queue, q] of queues) lines.push(`${name}{${label(queue)}} ${pick(q)}`);
  };
  gauge('weft_queue_running', 'Jobs holding a slot of each queue.', (q) => q.running);
  gauge('weft_queue_depth', 'Jobs waiting in each queue for a slot.', (q) => q.waiting);
  gauge(
    'weft_queue_task_attempts_running',
    'Attempts of tasks that name each queue, running (claimed through it, lease live).',
    (q) => q.attempts,
  );
  gauge(
    'weft_queue_oldest_wait_seconds',
    "How long each queue's longest-waiting job has waited (0: none waits).",
    (q) => (q.oldest === null ? 0 : Math.max(0, (now - q.oldest) / 1000)),
  );
  gauge(
    'weft_queue_rate_limited_delay_seconds',
    "How long each queue's rate limit holds its next start back (0: it would start now).",
    ({ record: r }) => (r ? rateDelayMs(r.rateTat, r.rateLimit, r.ratePeriodMs, now) / 1000 : 0),
  );
  gauge(
    'weft_queue_rate_limited_keys',
    'Keys of each queue whose own rate limit holds their next start back.',
    ({ record: r }) =>
      r
        ? Object.values(r.keyTats).filter(
            (tat) => rateDelayMs(tat, r.keyRateLimit, r.keyRatePeriodMs, now) > 0,
          ).length
        : 0,
  );
  const histogram = 'weft_queue_wait_seconds';
  lines.push(
    `# HELP ${histogram} How long each queue's jobs waited for a slot, counted when admitted.`,
    `# TYPE ${histogram} histogram`,
  );
  for (const [queue, { record }] of queues) {
    const waits = record?.waits ?? { count: 0, sumMs: 0, buckets: [] };
    QUEUE_WAIT_BOUNDS_S.forEach((bound, i) => {
      lines.push(`${histogram}_bucket{${label(queue)},le="${bound}"} ${waits.buckets[i] ?? 0}`);
    });
    lines.push(
      `${histogram}_bucket{${label(queue)},le="+Inf"} ${waits.count}`,
      `${histogram}_sum{${label(queue)}} ${waits.sumMs / 1000}`,
      `${histogram}_count{${label(queue)}} ${waits.count}`,
    );
  }
  return lines;
}
