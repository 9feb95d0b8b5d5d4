/**
 * Redis queues (flow control, docs/flow-control.md): the queue records in
 * `weft:{g}:queues`, the items — a job waiting for a slot or running on one — in
 * `weft:{g}:qitems` (job → item) with each queue's jobs in enqueue order in
 * `weft:{g}:qjobs:<queue>`. `lockQueue` takes the queue's lock (a second admission waits
 * for the first, so limits hold across every worker). Reads walk a queue's items: a
 * queue's backlog, not the store's jobs. The store deletes an item when its job ends
 * (`jobEnded`, called by setJobState), in the same commit.
 */
import { mergeWaiting, QUEUED_STREAM } from '../../queue-rules.js';
import type {
  NewQueueItem,
  QueuedClaimOptions,
  QueuedPick,
  QueueItem,
  QueueKeyCount,
  QueueRecord,
  StreamMessage,
} from '../../records.js';
import { after } from '../../stream-options.js';
import { globalKeys as G, partitionKeys as K, member } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { dropMessage, jobMessages, readMessages } from './streams.js';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Writes a queue whole. */
export function putQueue(tx: RedisTx, queue: QueueRecord): void {
  tx.hset(G.queues, [[queue.name, JSON.stringify(queue)]]);
}

/** Reads a queue (unlocked). */
export async function getQueue(tx: RedisTx, name: string): Promise<QueueRecord | undefined> {
  const text = await tx.hget(G.queues, name);
  return text === undefined ? undefined : (JSON.parse(text) as QueueRecord);
}

/** Reads a queue and holds it to the end of the transaction (a second locker waits). */
export async function lockQueue(tx: RedisTx, name: string): Promise<QueueRecord | undefined> {
  await tx.lock(G.lock(`queue:${name}`));
  const text = await tx.hgetChecked(G.queues, name);
  return text === undefined ? undefined : (JSON.parse(text) as QueueRecord);
}

/** Every queue, by name. */
export async function listQueues(tx: RedisTx): Promise<QueueRecord[]> {
  const all = [...(await tx.hgetall(G.queues)).values()].map((t) => JSON.parse(t) as QueueRecord);
  return all.sort((a, b) => byText(a.name, b.name));
}

/** Deletes a queue; false when there was none. */
export async function deleteQueue(tx: RedisTx, name: string): Promise<boolean> {
  if ((await tx.hgetChecked(G.queues, name)) === undefined) return false;
  tx.hset(G.queues, [[name, null]]);
  return true;
}

/** Puts a job in line (once: a job already in a queue stays as it is). */
export async function enqueue(tx: RedisTx, item: NewQueueItem): Promise<void> {
  if ((await tx.hgetChecked(G.queueItems, item.job)) !== undefined) return;
  const seq = await tx.redis.incr(G.queueSeq);
  const stored: QueueItem = {
    job: item.job,
    queue: item.queue,
    key: item.key,
    priority: item.priority,
    seq,
    state: item.admittedAt === undefined ? 'waiting' : 'running',
    enqueuedAt: tx.now(),
    availableAt: item.availableAt,
    admittedAt: item.admittedAt ?? null,
  };
  tx.hset(G.queueItems, [[item.job, JSON.stringify(stored)]]);
  tx.member(G.queueJobs(item.queue), item.job, seq);
  // Admitters hear of a job that waits; one admitted at once needs none.
  if (item.admittedAt === undefined) tx.notify(`stream:${QUEUED_STREAM}`);
}

/** A job's queue item. */
export async function getQueueItem(tx: RedisTx, job: string): Promise<QueueItem | undefined> {
  const text = await tx.hget(G.queueItems, job);
  return text === undefined ? undefined : (JSON.parse(text) as QueueItem);
}

/** A queue's items, in enqueue order, as this transaction sees them. */
async function itemsOf(tx: RedisTx, queue: string): Promise<QueueItem[]> {
  const key = G.queueJobs(queue);
  const jobs = new Set(await tx.redis.zrange(key, '0', '-1'));
  for (const [job, seq] of tx.ownMembers(key)) {
    if (seq === null) jobs.delete(job);
    else jobs.add(job);
  }
  const items = await Promise.all([...jobs].map((job) => getQueueItem(tx, job)));
  return items
    .filter((i): i is QueueItem => i !== undefined && i.queue === queue)
    .sort((a, b) => a.seq - b.seq);
}

/** A queue's waiting items due by `now`: the first `limit` by (priority, seq) and the `limit` oldest. */
export async function waitingItems(
  tx: RedisTx,
  queue: string,
  now: number,
  limit: number,
): Promise<QueueItem[]> {
  const waiting = (await itemsOf(tx, queue)).filter(
    (i) => i.state === 'waiting' && i.availableAt <= now,
  );
  const byPriority = [...waiting]
    .sort((a, b) => a.priority - b.priority || a.seq - b.seq)
    .slice(0, limit);
  return mergeWaiting(byPriority, waiting.slice(0, limit));
}

/** A queue's running items, counted per key. */
export async function runningKeys(
  tx: RedisTx,
  queue: string,
): Promise<{ key: string; running: number }[]> {
  const counts = new Map<string, number>();
  for (const item of await itemsOf(tx, queue)) {
    if (item.state === 'running') counts.set(item.key, (counts.get(item.key) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => byText(a, b)).map(([key, running]) => ({ key, running }));
}

/** Moves waiting items to running; returns how many moved. */
export async function admitItems(
  tx: RedisTx,
  jobs: readonly string[],
  now: number,
): Promise<number> {
  let admitted = 0;
  for (const job of jobs) {
    const text = await tx.hgetChecked(G.queueItems, job);
    if (text === undefined) continue;
    const item = JSON.parse(text) as QueueItem;
    if (item.state !== 'waiting') continue;
    const running: QueueItem = { ...item, state: 'running', admittedAt: now };
    tx.hset(G.queueItems, [[job, JSON.stringify(running)]]);
    admitted++;
  }
  return admitted;
}

/** Every item, as this transaction sees them. */
async function allItems(tx: RedisTx): Promise<QueueItem[]> {
  return [...(await tx.hgetall(G.queueItems)).values()].map((t) => JSON.parse(t) as QueueItem);
}

/** The queues with a waiting item due by `now`. */
export async function queuesWaiting(tx: RedisTx, now: number): Promise<string[]> {
  const names = new Set<string>();
  for (const item of await allItems(tx)) {
    if (item.state === 'waiting' && item.availableAt <= now) names.add(item.queue);
  }
  return [...names].sort(byText);
}

/** The queue keys of the task attempts claimed through `queue` whose lease lives at `now`. */
async function heldThrough(tx: RedisTx, queue: string, now: number): Promise<string[]> {
  const ids = (await tx.redis.zrange(G.queueClaims(queue), '0', '-1')).map((m) =>
    m.replace(/^0+(?=\d)/, ''),
  );
  const messages = await readMessages(tx, ids);
  const held: string[] = [];
  for (const m of messages) {
    const [through, key] = await tx.hmget(K.message(tx.partitions.ofMessage(m.id), m.id), [
      'queue',
      'queueKey',
    ]);
    if (through !== queue || m.consumer === null || (m.leaseUntil ?? 0) <= now) continue;
    held.push(key ?? '');
  }
  return held;
}

/** The attempts `queue` holds at `now`, per key. */
export async function queueHeld(
  tx: RedisTx,
  queue: string,
  now: number,
): Promise<{ key: string; running: number }[]> {
  const counts = new Map<string, number>();
  for (const key of await heldThrough(tx, queue, now)) {
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => byText(a, b)).map(([key, running]) => ({ key, running }));
}

/** Every queue key's running and waiting items, and the attempts held through it. */
export async function queueCounts(tx: RedisTx): Promise<QueueKeyCount[]> {
  const counts = new Map<string, QueueKeyCount>();
  const at = (queue: string, key: string) => {
    const id = `${queue}\u0000${key}`;
    let count = counts.get(id);
    if (!count) {
      count = { queue, key, running: 0, waiting: 0, oldestWaiting: null, attempts: 0 };
      counts.set(id, count);
    }
    return count;
  };
  for (const item of await allItems(tx)) {
    const count = at(item.queue, item.key);
    if (item.state === 'running') count.running++;
    else {
      count.waiting++;
      count.oldestWaiting =
        count.oldestWaiting === null
          ? item.enqueuedAt
          : Math.min(count.oldestWaiting, item.enqueuedAt);
    }
  }
  const now = tx.now();
  for (const queue of (await listQueues(tx)).map((q) => q.name)) {
    for (const key of await heldThrough(tx, queue, now)) {
      const count = at(queue, key);
      count.attempts = (count.attempts ?? 0) + 1;
    }
  }
  return [...counts.values()].sort((a, b) => byText(a.queue, b.queue) || byText(a.key, b.key));
}

/**
 * Claims picked messages of `stream` through `options.queue`, each under its key, as a
 * claim does; one no longer claimable is left out. Buffered: the commit checks each
 * message is still as read (a claim through a queue runs under the queue's lock).
 */
export async function claimQueued(
  tx: RedisTx,
  stream: string,
  picks: readonly QueuedPick[],
  options: QueuedClaimOptions,
): Promise<StreamMessage[]> {
  const now = tx.now();
  const until = after(now, options.leaseMs);
  const out: StreamMessage[] = [];
  for (const pick of picks) {
    // The message's own partition (its id says which).
    const P = tx.partitions.ofMessage(pick.id);
    const key = K.message(P, pick.id);
    const [m] = await readMessages(tx, [pick.id]);
    if (!m || m.stream !== stream || m.availableAt > now) continue;
    // Checked at commit: a claim of it meanwhile makes this one run again.
    await tx.hgetChecked(key, 'consumer');
    await tx.hgetChecked(key, 'deliveries');
    await tx.hgetChecked(key, 'availableAt');
    const claimed: StreamMessage = {
      ...m,
      consumer: options.consumer,
      deliveries: m.deliveries + 1,
      leaseUntil: until,
      availableAt: until,
    };
    tx.hset(key, [
      ['consumer', options.consumer],
      ['deliveries', String(claimed.deliveries)],
      ['leaseUntil', String(until)],
      ['availableAt', String(until)],
      ['queue', options.queue],
      ['queueKey', pick.key],
    ]);
    tx.member(K.due(P, stream), member(pick.id), until);
    tx.member(K.held(P, stream), member(pick.id), until);
    tx.member(G.queueClaims(options.queue), member(pick.id), Number(pick.id));
    tx.entry(key, { kind: 'sync', stream: K.stream(P, stream), id: pick.id, job: '' });
    out.push(m.consumer ? { ...claimed, previousConsumer: m.consumer } : claimed);
  }
  return out.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * A job ended: its item goes, freeing its slot (or its place in line, with the messages
 * parked for its admission), and workers hear that a slot is free.
 */
export async function jobEnded(tx: RedisTx, job: string): Promise<void> {
  const text = await tx.hget(G.queueItems, job);
  if (text === undefined) return;
  const item = JSON.parse(text) as QueueItem;
  tx.hset(G.queueItems, [[job, null]]);
  tx.member(G.queueJobs(item.queue), job, null);
  if (item.state === 'waiting') {
    for (const m of await jobMessages(tx, job)) {
      if (m.stream === QUEUED_STREAM) await dropMessage(tx, m.stream, m.id);
    }
  }
  tx.notify(`stream:${QUEUED_STREAM}`);
}
