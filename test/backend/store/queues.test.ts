/**
 * Conformance: queues — a queue is written whole and read back; items wait in
 * (priority, seq) order and the oldest are read too; running items count per key;
 * admitting moves only waiting items; a job's end deletes its item in the move that
 * ends it, and the messages parked for a job that never got a slot; a queue lock holds a
 * second locker until the first commits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { QUEUED_STREAM } from '../../../src/store/queue-rules.js';
import type { QueueRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const T0 = Date.UTC(2026, 0, 1);
let store: Store;
let clock: SimulatedClock;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  clock = new SimulatedClock(T0);
  ({ store, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const queue = (name: string, patch: Partial<QueueRecord> = {}): QueueRecord => ({
  name,
  concurrency: 3,
  keyConcurrency: 1,
  rateLimit: 20,
  ratePeriodMs: 2000,
  agingMs: 60_000,
  keyRateLimit: 5,
  keyRatePeriodMs: 1000,
  throttle: 'wait',
  rateTat: 0,
  keyTats: { a: T0 + 200 },
  lastKey: null,
  waits: { count: 2, sumMs: 300, buckets: [1, 2] },
  source: 'cli',
  createdAt: T0,
  updatedAt: T0,
  ...patch,
});

async function job(id: string) {
  await store.createJob({ id, workflow: 'w', version: 1, model: 'graph', input: null });
}

describe('queues', () => {
  it('reads a queue back as written; a second write replaces it; lists and deletes', async () => {
    await store.putQueue(queue('b'));
    await store.putQueue(
      queue('a', { concurrency: null, keyConcurrency: null, rateLimit: null, ratePeriodMs: null }),
    );
    expect(await store.getQueue('b')).toEqual(queue('b'));
    const moved = queue('b', { rateTat: T0 + 100, lastKey: 'cus_1', updatedAt: T0 + 5 });
    await store.putQueue(moved);
    expect(await store.getQueue('b')).toEqual(moved);
    expect((await store.listQueues()).map((q) => q.name)).toEqual(['a', 'b']);
    expect(await store.deleteQueue('a')).toBe(true);
    expect(await store.deleteQueue('a')).toBe(false);
    expect(await store.getQueue('a')).toBeUndefined();
  });

  it('keeps items in line by priority then order, reads the oldest too, and counts running per key', async () => {
    for (const id of ['j1', 'j2', 'j3', 'j4', 'j5']) await job(id);
    await store.enqueue({ job: 'j1', queue: 'q', key: 'a', priority: 5, availableAt: T0 });
    await store.enqueue({ job: 'j2', queue: 'q', key: 'b', priority: 0, availableAt: T0 });
    await store.enqueue({ job: 'j3', queue: 'q', key: 'a', priority: 0, availableAt: T0 });
    await store.enqueue({ job: 'j4', queue: 'q', key: '', priority: 0, availableAt: T0 + 1000 });
    await store.enqueue({ job: 'j5', queue: 'other', key: 'a', priority: 0, availableAt: T0 });
    // A second enqueue of one job changes nothing.
    await store.enqueue({ job: 'j1', queue: 'other', key: 'z', priority: -1, availableAt: T0 });
    expect(await store.getQueueItem('j1')).toMatchObject({
      queue: 'q',
      key: 'a',
      priority: 5,
      state: 'waiting',
      enqueuedAt: T0,
      admittedAt: null,
    });
    // Due by T0: j4 is not; by priority the first two are j2, j3; the oldest two j1, j2.
    const waiting = await store.waitingItems('q', T0, 2);
    expect(waiting.map((i) => i.job)).toEqual(['j1', 'j2', 'j3']);
    expect((await store.waitingItems('q', T0 + 1000, 10)).map((i) => i.job)).toEqual([
      'j1',
      'j2',
      'j3',
      'j4',
    ]);
    expect(await store.queuesWaiting(T0)).toEqual(['other', 'q']);

    expect(await store.admitItems(['j1', 'j3', 'nope'], T0 + 5)).toBe(2);
    expect(await store.admitItems(['j1'], T0 + 6)).toBe(0);
    expect(await store.getQueueItem('j1')).toMatchObject({ state: 'running', admittedAt: T0 + 5 });
    expect(await store.runningKeys('q')).toEqual([{ key: 'a', running: 2 }]);
    expect((await store.waitingItems('q', T0 + 1000, 10)).map((i) => i.job)).toEqual(['j2', 'j4']);
    expect(await store.queueCounts()).toEqual([
      { queue: 'other', key: 'a', running: 0, waiting: 1, oldestWaiting: T0, attempts: 0 },
      { queue: 'q', key: '', running: 0, waiting: 1, oldestWaiting: T0, attempts: 0 },
      { queue: 'q', key: 'a', running: 2, waiting: 0, oldestWaiting: null, attempts: 0 },
      { queue: 'q', key: 'b', running: 0, waiting: 1, oldestWaiting: T0, attempts: 0 },
    ]);
  });

  it("deletes a job's item when the job ends, and the messages parked for a job that waited", async () => {
    for (const id of ['run', 'wait']) await job(id);
    await store.enqueue({ job: 'run', queue: 'q', key: '', priority: 0, availableAt: T0 });
    await store.enqueue({ job: 'wait', queue: 'q', key: '', priority: 0, availableAt: T0 });
    await store.append([{ stream: 'engine', job: 'wait', payload: { k: 'enter' } }]);
    await store.parkMessages('wait', QUEUED_STREAM);
    expect(await store.countMessages(QUEUED_STREAM)).toBe(1);
    await store.admitItems(['run'], T0);
    // A move that does not end the job keeps its item.
    expect(await store.setJobState('run', 'PENDING', 'RUNNING')).toBe(true);
    expect(await store.setJobState('wait', 'PENDING', 'RUNNING')).toBe(true);
    expect(await store.getQueueItem('run')).toBeDefined();
    await store.transaction(async (tx) => {
      expect(await tx.setJobState('run', 'RUNNING', 'SUCCESS')).toBe(true);
      expect(await tx.setJobState('wait', 'RUNNING', 'FAILURE')).toBe(true);
    });
    expect(await store.getQueueItem('run')).toBeUndefined();
    expect(await store.getQueueItem('wait')).toBeUndefined();
    expect(await store.countMessages(QUEUED_STREAM)).toBe(0);
    expect(await store.queueCounts()).toEqual([]);
  });

  it('holds a second locker of a queue until the first commits', async () => {
    await store.putQueue(queue('q'));
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockedOnce = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const first = store.transaction(async (tx) => {
      const q = await tx.lockQueue('q');
      order.push('first locked');
      locked();
      await held;
      await tx.putQueue({ ...(q as QueueRecord), rateTat: 7 });
      order.push('first wrote');
    });
    await lockedOnce;
    const second = store.transaction(async (tx) => {
      order.push(`second read rateTat=${(await tx.lockQueue('q'))?.rateTat}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first wrote', 'second read rateTat=7']);
  });
});
