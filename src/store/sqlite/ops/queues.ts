/**
 * SQLite queues: the queue rows, and the items — a job waiting for a slot or running on
 * one. An item is deleted by the store when its job ends (ops/jobs.ts), freeing its slot.
 */

import { mergeWaiting, QUEUED_STREAM } from '../../queue-rules.js';
import type {
  NewQueueItem,
  QueueItem,
  QueueKeyCount,
  QueueRecord,
  QueueThrottle,
} from '../../records.js';
import type { OpsContext, Statement } from './context.js';

interface QueueRow {
  name: string;
  concurrency: number | null;
  key_concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  aging_ms: number;
  key_rate_limit: number | null;
  key_rate_period_ms: number | null;
  throttle: string;
  rate_tat: number;
  key_tats: string;
  last_key: string | null;
  waits: string;
  source: string;
  created_at: number;
  updated_at: number;
}

interface ItemRow {
  seq: number;
  job: string;
  queue: string;
  key: string;
  priority: number;
  state: string;
  enqueued_at: number;
  available_at: number;
  admitted_at: number | null;
}

function toQueue(row: QueueRow): QueueRecord {
  return {
    name: row.name,
    concurrency: row.concurrency,
    keyConcurrency: row.key_concurrency,
    rateLimit: row.rate_limit,
    ratePeriodMs: row.rate_period_ms,
    agingMs: row.aging_ms,
    keyRateLimit: row.key_rate_limit,
    keyRatePeriodMs: row.key_rate_period_ms,
    throttle: row.throttle as QueueThrottle,
    rateTat: row.rate_tat,
    keyTats: JSON.parse(row.key_tats),
    lastKey: row.last_key,
    waits: JSON.parse(row.waits),
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toItem(row: ItemRow): QueueItem {
  return {
    job: row.job,
    queue: row.queue,
    key: row.key,
    priority: row.priority,
    seq: row.seq,
    state: row.state as QueueItem['state'],
    enqueuedAt: row.enqueued_at,
    availableAt: row.available_at,
    admittedAt: row.admitted_at,
  };
}

type Name =
  | 'put'
  | 'get'
  | 'all'
  | 'remove'
  | 'enqueue'
  | 'item'
  | 'byPriority'
  | 'oldest'
  | 'running'
  | 'admit'
  | 'waitingQueues'
  | 'counts'
  | 'end'
  | 'dropParked';

/** Queue operations on one connection. */
export class SqliteQueues {
  private readonly s: Record<Name, Statement>;

  constructor(private readonly ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      put: p(`INSERT OR REPLACE INTO weft_queues (name, concurrency, key_concurrency, rate_limit,
          rate_period_ms, aging_ms, key_rate_limit, key_rate_period_ms, throttle, rate_tat,
          key_tats, last_key, waits, source, created_at, updated_at)
        VALUES (@name, @concurrency, @key_concurrency, @rate_limit, @rate_period_ms, @aging_ms,
          @key_rate_limit, @key_rate_period_ms, @throttle, @rate_tat, @key_tats, @last_key,
          @waits, @source, @created_at, @updated_at)`),
      get: p('SELECT * FROM weft_queues WHERE name = ?'),
      all: p('SELECT * FROM weft_queues ORDER BY name'),
      remove: p('DELETE FROM weft_queues WHERE name = ?'),
      enqueue: p(`INSERT INTO weft_queue_items (job, queue, key, priority, state, enqueued_at,
          available_at, admitted_at)
        VALUES (@job, @queue, @key, @priority, @state, @now, @available_at, @admitted_at)
        ON CONFLICT (job) DO NOTHING`),
      item: p('SELECT * FROM weft_queue_items WHERE job = ?'),
      byPriority: p(`SELECT * FROM weft_queue_items WHERE queue = ? AND state = 'waiting'
          AND available_at <= ? ORDER BY priority, seq LIMIT ?`),
      oldest: p(`SELECT * FROM weft_queue_items WHERE queue = ? AND state = 'waiting'
          AND available_at <= ? ORDER BY seq LIMIT ?`),
      running: p(`SELECT key, count(*) AS running FROM weft_queue_items
          WHERE queue = ? AND state = 'running' GROUP BY key`),
      admit: p(`UPDATE weft_queue_items SET state = 'running', admitted_at = ?
          WHERE job = ? AND state = 'waiting'`),
      waitingQueues: p(`SELECT DISTINCT queue FROM weft_queue_items
          WHERE state = 'waiting' AND available_at <= ? ORDER BY queue`),
      // Jobs per key from the items; task attempts held through each queue from the messages.
      counts: p(`SELECT queue, key, sum(running) AS running, sum(waiting) AS waiting,
          min(oldest) AS oldest, sum(attempts) AS attempts
        FROM (
          SELECT queue, key,
            sum(state = 'running') AS running, sum(state = 'waiting') AS waiting,
            min(CASE WHEN state = 'waiting' THEN enqueued_at END) AS oldest, 0 AS attempts
          FROM weft_queue_items GROUP BY queue, key
          UNION ALL
          SELECT queue, queue_key, 0, 0, NULL, count(*) FROM weft_messages
          WHERE queue IS NOT NULL AND available_at > ? AND consumer IS NOT NULL
          GROUP BY queue, queue_key
        ) GROUP BY queue, key ORDER BY queue, key`),
      end: p('DELETE FROM weft_queue_items WHERE job = ? RETURNING state'),
      dropParked: p('DELETE FROM weft_messages WHERE stream = ? AND job = ?'),
    };
  }

  putQueue(q: QueueRecord): void {
    this.s.put.run({
      name: q.name,
      concurrency: q.concurrency,
      key_concurrency: q.keyConcurrency,
      rate_limit: q.rateLimit,
      rate_period_ms: q.ratePeriodMs,
      aging_ms: q.agingMs,
      key_rate_limit: q.keyRateLimit,
      key_rate_period_ms: q.keyRatePeriodMs,
      throttle: q.throttle,
      rate_tat: q.rateTat,
      key_tats: JSON.stringify(q.keyTats),
      last_key: q.lastKey,
      waits: JSON.stringify(q.waits),
      source: q.source,
      created_at: q.createdAt,
      updated_at: q.updatedAt,
    });
  }

  getQueue(name: string): QueueRecord | undefined {
    const row = this.s.get.get(name) as QueueRow | undefined;
    return row ? toQueue(row) : undefined;
  }

  listQueues(): QueueRecord[] {
    return (this.s.all.all() as QueueRow[]).map(toQueue);
  }

  deleteQueue(name: string): boolean {
    return this.s.remove.run(name).changes === 1;
  }

  enqueue(item: NewQueueItem): void {
    this.s.enqueue.run({
      job: item.job,
      queue: item.queue,
      key: item.key,
      priority: item.priority,
      now: this.ctx.clock.now(),
      available_at: item.availableAt,
      state: item.admittedAt === undefined ? 'waiting' : 'running',
      admitted_at: item.admittedAt ?? null,
    });
    // Admitters hear of a job that waits; one admitted at once needs none.
    if (item.admittedAt === undefined) this.ctx.notify(`stream:${QUEUED_STREAM}`);
  }

  getQueueItem(job: string): QueueItem | undefined {
    const row = this.s.item.get(job) as ItemRow | undefined;
    return row ? toItem(row) : undefined;
  }

  waitingItems(queue: string, now: number, limit: number): QueueItem[] {
    const byPriority = (this.s.byPriority.all(queue, now, limit) as ItemRow[]).map(toItem);
    const oldest = (this.s.oldest.all(queue, now, limit) as ItemRow[]).map(toItem);
    return mergeWaiting(byPriority, oldest);
  }

  runningKeys(queue: string): { key: string; running: number }[] {
    return this.s.running.all(queue) as { key: string; running: number }[];
  }

  admitItems(jobs: readonly string[], now: number): number {
    let admitted = 0;
    for (const job of jobs) admitted += this.s.admit.run(now, job).changes;
    return admitted;
  }

  queuesWaiting(now: number): string[] {
    return (this.s.waitingQueues.all(now) as { queue: string }[]).map((r) => r.queue);
  }

  queueCounts(): QueueKeyCount[] {
    return (
      this.s.counts.all(this.ctx.clock.now()) as {
        queue: string;
        key: string;
        running: number;
        waiting: number;
        oldest: number | null;
        attempts: number;
      }[]
    ).map((r) => ({
      queue: r.queue,
      key: r.key,
      running: r.running,
      waiting: r.waiting,
      oldestWaiting: r.oldest,
      attempts: Number(r.attempts ?? 0),
    }));
  }

  /**
   * A job ended: its item goes, freeing its slot (or its place in line, with the messages
   * parked for its admission), and workers hear that a slot is free.
   */
  jobEnded(job: string): void {
    const row = this.s.end.get(job) as { state: string } | undefined;
    if (!row) return;
    if (row.state === 'waiting') this.s.dropParked.run(QUEUED_STREAM, job);
    this.ctx.notify(`stream:${QUEUED_STREAM}`);
  }
}
