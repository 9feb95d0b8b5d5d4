/**
 * Conformance: workers — a worker's heartbeat records what it serves (a first one sets
 * its start, later ones replace what it serves), the live ones are those heard from
 * since a time, a clean stop forgets one, dead ones are pruned; and the streams whose
 * messages have waited unheld since a time, by name prefix, with the longest-waiting
 * message's job, skipping the streams it is told to skip.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { ValidationError } from '../../../src/core/errors.js';
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

const serving = (id: string, tasks: string[], at: number) => ({
  id,
  tasks,
  streams: ['engine', 'durable'],
  workflows: ['trip'],
  at,
});

describe('workers', () => {
  it('records what a worker serves; a later heartbeat keeps its start and replaces the rest', async () => {
    await store.putWorker(serving('w1', ['quick', 'fox'], T0));
    expect(await store.listWorkers()).toEqual([
      {
        id: 'w1',
        tasks: ['quick', 'fox'],
        streams: ['engine', 'durable'],
        workflows: ['trip'],
        startedAt: T0,
        heartbeatAt: T0,
      },
    ]);
    await store.putWorker({ ...serving('w1', ['quick'], T0 + 10_000), workflows: [] });
    expect(await store.listWorkers()).toEqual([
      {
        id: 'w1',
        tasks: ['quick'],
        streams: ['engine', 'durable'],
        workflows: [],
        startedAt: T0,
        heartbeatAt: T0 + 10_000,
      },
    ]);
  });

  it('lists the live workers (heard from since a time) in id order; forgets and prunes', async () => {
    await store.putWorker(serving('w2', ['b'], T0 + 5_000));
    await store.putWorker(serving('w1', ['a'], T0));
    await store.putWorker(serving('w3', [], T0 + 30_000));
    expect((await store.listWorkers()).map((w) => w.id)).toEqual(['w1', 'w2', 'w3']);
    expect((await store.listWorkers(T0 + 5_000)).map((w) => w.id)).toEqual(['w2', 'w3']);
    expect(await store.listWorkers(T0 + 30_001)).toEqual([]);

    expect(await store.removeWorker('w3')).toBe(true);
    expect(await store.removeWorker('w3')).toBe(false);
    expect(await store.pruneWorkers(T0 + 5_000)).toBe(1);
    expect((await store.listWorkers()).map((w) => w.id)).toEqual(['w2']);
  });

  it('writes in a transaction with the rest, and rolls back with it', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.putWorker(serving('w1', ['a'], T0));
        expect(await tx.listWorkers()).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.listWorkers()).toEqual([]);
  });

  it('finds the streams of a prefix whose messages have waited unheld since a time', async () => {
    // Appended at T0: two on task:brown (jobs j1, j2), one on task:fox, one on engine.
    await store.append([
      { stream: 'task:brown', job: 'j1', payload: 1 },
      { stream: 'task:fox', job: 'j3', payload: 3 },
      { stream: 'engine', job: 'j4', payload: 4 },
    ]);
    await store.append([{ stream: 'task:brown', job: 'j2', payload: 2, availableAt: T0 + 1_000 }]);
    // A message delayed into the future has not waited yet.
    await store.append([{ stream: 'task:slept', job: 'j5', payload: 5, availableAt: T0 + 60_000 }]);

    expect(await store.waitingStreams('task:', T0)).toEqual([
      { stream: 'task:brown', messages: 1, since: T0, job: 'j1' },
      { stream: 'task:fox', messages: 1, since: T0, job: 'j3' },
    ]);
    expect(await store.waitingStreams('task:', T0 + 1_000)).toEqual([
      { stream: 'task:brown', messages: 2, since: T0, job: 'j1' },
      { stream: 'task:fox', messages: 1, since: T0, job: 'j3' },
    ]);
    expect(await store.waitingStreams('task:', T0 - 1)).toEqual([]);

    // A message held under a live lease is served; once its lease runs out it waits again.
    const [held] = await store.claim('task:fox', { consumer: 'w1', max: 1, leaseMs: 5_000 });
    expect(held?.job).toBe('j3');
    expect((await store.waitingStreams('task:', T0 + 1_000)).map((s) => s.stream)).toEqual([
      'task:brown',
    ]);
    expect(await store.waitingStreams('task:', T0 + 5_000)).toContainEqual({
      stream: 'task:fox',
      messages: 1,
      since: T0 + 5_000,
      job: 'j3',
    });
    expect(await store.waitingStreams('engine', T0)).toEqual([
      { stream: 'engine', messages: 1, since: T0, job: 'j4' },
    ]);
  });

  it('skips the streams it is told to, and counts up to 1,000', async () => {
    await store.append(
      Array.from({ length: 1_005 }, (_, i) => ({ stream: 'task:busy', job: `b${i}`, payload: i })),
    );
    await store.append([{ stream: 'task:brown', job: 'j1', payload: 1 }]);
    await store.append([{ stream: 'task:zed', job: 'z1', payload: 1 }]);
    expect(await store.waitingStreams('task:', T0)).toEqual([
      { stream: 'task:brown', messages: 1, since: T0, job: 'j1' },
      { stream: 'task:busy', messages: 1_000, since: T0, job: 'b0' },
      { stream: 'task:zed', messages: 1, since: T0, job: 'z1' },
    ]);
    expect(await store.waitingStreams('task:', T0, ['task:busy', 'task:nothing'])).toEqual([
      { stream: 'task:brown', messages: 1, since: T0, job: 'j1' },
      { stream: 'task:zed', messages: 1, since: T0, job: 'z1' },
    ]);
  });

  it('refuses an empty prefix', async () => {
    await expect(store.waitingStreams('', T0)).rejects.toBeInstanceOf(ValidationError);
  });
});
