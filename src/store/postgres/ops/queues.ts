/**
 * PostgreSQL queues: the queue rows (locked by an admission, FOR UPDATE, so two workers
 * admit one after the other) and the items — a job waiting for a slot or running on one.
 * An item is deleted when its job ends (ops/jobs.ts's move), freeing its slot.
 */
import { mergeWaiting, QUEUED_STREAM } from '../../queue-rules.js';
import type {
  NewQueueItem,
  QueueItem,
  QueueKeyCount,
  QueueRecord,
  QueueThrottle,
  QueueWaits,
} from '../../records.js';
import { type Db, sql } from './context.js';

type Num = string | number;
const num = (v: Num) => Number(v);
const numOrNull = (v: Num | null) => (v === null ? null : Number(v));

interface QueueRow {
  name: string;
  concurrency: number | null;
  key_concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: Num | null;
  aging_ms: Num;
  key_rate_limit: number | null;
  key_rate_period_ms: Num | null;
  throttle: string;
  rate_tat: Num;
  key_tats: Record<string, number>;
  last_key: string | null;
  waits: QueueWaits;
  source: string;
  created_at: Num;
  updated_at: Num;
}

interface ItemRow {
  seq: Num;
  job: string;
  queue: string;
  key: string;
  priority: number;
  state: string;
  enqueued_at: Num;
  available_at: Num;
  admitted_at: Num | null;
}

function toQueue(row: QueueRow): QueueRecord {
  return {
    name: row.name,
    concurrency: row.concurrency,
    keyConcurrency: row.key_concurrency,
    rateLimit: row.rate_limit,
    ratePeriodMs: numOrNull(row.rate_period_ms),
    agingMs: num(row.aging_ms),
    keyRateLimit: row.key_rate_limit,
    keyRatePeriodMs: numOrNull(row.key_rate_period_ms),
    throttle: row.throttle as QueueThrottle,
    rateTat: num(row.rate_tat),
    keyTats: row.key_tats,
    lastKey: row.last_key,
    waits: row.waits,
    source: row.source,
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

function toItem(row: ItemRow): QueueItem {
  return {
    job: row.job,
    queue: row.queue,
    key: row.key,
    priority: row.priority,
    seq: num(row.seq),
    state: row.state as QueueItem['state'],
    enqueuedAt: num(row.enqueued_at),
    availableAt: num(row.available_at),
    admittedAt: numOrNull(row.admitted_at),
  };
}

const PUT = sql(
  'queue_put',
  `INSERT INTO weft_queues (name, concurrency, key_concurrency, rate_limit, rate_period_ms,
     aging_ms, key_rate_limit, key_rate_period_ms, throttle, rate_tat, key_tats, last_key,
     waits, source, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::jsonb, $14, $15, $16)
   ON CONFLICT (name) DO UPDATE SET concurrency = EXCLUDED.concurrency,
     key_concurrency = EXCLUDED.key_concurrency, rate_limit = EXCLUDED.rate_limit,
     rate_period_ms = EXCLUDED.rate_period_ms, aging_ms = EXCLUDED.aging_ms,
     key_rate_limit = EXCLUDED.key_rate_limit, key_rate_period_ms = EXCLUDED.key_rate_period_ms,
     throttle = EXCLUDED.throttle, rate_tat = EXCLUDED.rate_tat, key_tats = EXCLUDED.key_tats,
     last_key = EXCLUDED.last_key, waits = EXCLUDED.waits, source = EXCLUDED.source,
     created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
);
const GET = sql('queue_get', 'SELECT * FROM weft_queues WHERE name = $1');
const LOCK = sql('queue_lock', 'SELECT * FROM weft_queues WHERE name = $1 FOR UPDATE');
const LIST = sql('queue_list', 'SELECT * FROM weft_queues ORDER BY name');
const REMOVE = sql('queue_remove', 'DELETE FROM weft_queues WHERE name = $1');
const ENQUEUE = sql(
  'queue_enqueue',
  `INSERT INTO weft_queue_items (job, queue, key, priority, state, enqueued_at, available_at,
     admitted_at)
   VALUES ($1, $2, $3, $4, CASE WHEN $7::bigint IS NULL THEN 'waiting' ELSE 'running' END, $5, $6, $7)
   ON CONFLICT (job) DO NOTHING
   RETURNING CASE WHEN $7::bigint IS NULL THEN pg_notify('weft', 's:${QUEUED_STREAM}') IS NULL END
     AS notified`,
);
const ITEM = sql('queue_item', 'SELECT * FROM weft_queue_items WHERE job = $1');
const BY_PRIORITY = sql(
  'queue_by_priority',
  `SELECT * FROM weft_queue_items WHERE queue = $1 AND state = 'waiting' AND available_at <= $2
   ORDER BY priority, seq LIMIT $3`,
);
const OLDEST = sql(
  'queue_oldest',
  `SELECT * FROM weft_queue_items WHERE queue = $1 AND state = 'waiting' AND available_at <= $2
   ORDER BY seq LIMIT $3`,
);
const RUNNING = sql(
  'queue_running',
  `SELECT key, count(*)::int AS running FROM weft_queue_items
   WHERE queue = $1 AND state = 'running' GROUP BY key`,
);
const ADMIT = sql(
  'queue_admit',
  `UPDATE weft_queue_items SET state = 'running', admitted_at = $2
   WHERE job = ANY($1::text[]) AND state = 'waiting'`,
);
const WAITING_QUEUES = sql(
  'queue_waiting_queues',
  `SELECT DISTINCT queue FROM weft_queue_items
   WHERE state = 'waiting' AND available_at <= $1 ORDER BY queue`,
);
// Jobs per key from the items; task attempts held through each queue from the messages.
const COUNTS = sql(
  'queue_counts',
  `SELECT queue, key, sum(running)::int AS running, sum(waiting)::int AS waiting,
     min(oldest) AS oldest, sum(attempts)::int AS attempts
   FROM (
     SELECT queue, key,
       count(*) FILTER (WHERE state = 'running') AS running,
       count(*) FILTER (WHERE state = 'waiting') AS waiting,
       min(enqueued_at) FILTER (WHERE state = 'waiting') AS oldest, 0 AS attempts
     FROM weft_queue_items GROUP BY queue, key
     UNION ALL
     SELECT queue, queue_key, 0, 0, NULL, count(*) FROM weft_messages
     WHERE queue IS NOT NULL AND available_at > $1 AND consumer IS NOT NULL
     GROUP BY queue, queue_key
   ) c
   GROUP BY queue, key ORDER BY queue, key`,
);

/** Queue operations. */
export const queues = {
  async putQueue(db: Db, q: QueueRecord): Promise<void> {
    await db.count(PUT, [
      q.name,
      q.concurrency,
      q.keyConcurrency,
      q.rateLimit,
      q.ratePeriodMs,
      q.agingMs,
      q.keyRateLimit,
      q.keyRatePeriodMs,
      q.throttle,
      q.rateTat,
      JSON.stringify(q.keyTats),
      q.lastKey,
      JSON.stringify(q.waits),
      q.source,
      q.createdAt,
      q.updatedAt,
    ]);
  },

  async getQueue(db: Db, name: string): Promise<QueueRecord | undefined> {
    const [row] = await db.rows<QueueRow>(GET, [name]);
    return row ? toQueue(row) : undefined;
  },

  async lockQueue(db: Db, name: string): Promise<QueueRecord | undefined> {
    const [row] = await db.rows<QueueRow>(LOCK, [name]);
    return row ? toQueue(row) : undefined;
  },

  async listQueues(db: Db): Promise<QueueRecord[]> {
    return (await db.rows<QueueRow>(LIST, [])).map(toQueue);
  },

  async deleteQueue(db: Db, name: string): Promise<boolean> {
    return (await db.count(REMOVE, [name])) === 1;
  },

  async enqueue(db: Db, item: NewQueueItem): Promise<void> {
    const added = await db.count(ENQUEUE, [
      item.job,
      item.queue,
      item.key,
      item.priority,
      db.clock.now(),
      item.availableAt,
      item.admittedAt ?? null,
    ]);
    if (added > 0 && item.admittedAt === undefined) db.notify(`stream:${QUEUED_STREAM}`);
  },

  async getQueueItem(db: Db, job: string): Promise<QueueItem | undefined> {
    const [row] = await db.rows<ItemRow>(ITEM, [job]);
    return row ? toItem(row) : undefined;
  },

  async waitingItems(db: Db, queue: string, now: number, limit: number): Promise<QueueItem[]> {
    const [byPriority, oldest] = await Promise.all([
      db.rows<ItemRow>(BY_PRIORITY, [queue, now, limit]),
      db.rows<ItemRow>(OLDEST, [queue, now, limit]),
    ]);
    return mergeWaiting(byPriority.map(toItem), oldest.map(toItem));
  },

  async runningKeys(db: Db, queue: string): Promise<{ key: string; running: number }[]> {
    return db.rows<{ key: string; running: number }>(RUNNING, [queue]);
  },

  async admitItems(db: Db, jobs: readonly string[], now: number): Promise<number> {
    if (jobs.length === 0) return 0;
    return db.count(ADMIT, [[...jobs], now]);
  },

  async queuesWaiting(db: Db, now: number): Promise<string[]> {
    return (await db.rows<{ queue: string }>(WAITING_QUEUES, [now])).map((r) => r.queue);
  },

  async queueCounts(db: Db): Promise<QueueKeyCount[]> {
    const rows = await db.rows<{
      queue: string;
      key: string;
      running: number;
      waiting: number;
      oldest: Num | null;
      attempts: number;
    }>(COUNTS, [db.clock.now()]);
    return rows.map((r) => ({
      queue: r.queue,
      key: r.key,
      running: r.running,
      waiting: r.waiting,
      oldestWaiting: numOrNull(r.oldest),
      attempts: Number(r.attempts ?? 0),
    }));
  },
};
