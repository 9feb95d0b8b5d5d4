/**
 * The store's monitoring reads: jobs counted by state under a filter, per-stream depths
 * with held messages and expired leases, dead letters by stream and the history's
 * high-water mark (steps so far); `storeStats` (each `/metrics` scrape) counts unfinished
 * jobs only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

describe.skipIf(skipBackend)('store stats', () => {
  let clock: SimulatedClock;
  let store: Store;
  let close: () => Promise<void>;
  beforeEach(async () => {
    clock = new SimulatedClock();
    ({ store, close } = await openTestStore({ clock }));
  });
  afterEach(async () => close());

  it('counts jobs by state under a workflow, parent and time bounds, ignoring states and paging', async () => {
    const t0 = clock.now();
    const job = (
      id: string,
      workflow: string,
      state: 'RUNNING' | 'SUCCESS',
      at: number,
      parentId?: string,
    ) =>
      store.createJob({
        id,
        workflow,
        version: 1,
        model: 'graph',
        input: null,
        state,
        createdAt: at,
        ...(parentId && { parentId }),
      });
    await job('j1', 'a', 'RUNNING', t0);
    await job('j2', 'a', 'SUCCESS', t0 + 10);
    await job('j3', 'b', 'RUNNING', t0 + 20);
    await job('j4', 'a', 'RUNNING', t0 + 30, 'j1');
    expect(await store.countJobs()).toEqual({ RUNNING: 3, SUCCESS: 1 });
    expect(await store.countJobs({ workflow: 'a' })).toEqual({ RUNNING: 2, SUCCESS: 1 });
    expect(
      await store.countJobs({ workflow: 'a', state: 'SUCCESS', limit: 1, after: 'j9' }),
    ).toEqual({ RUNNING: 2, SUCCESS: 1 });
    expect(await store.countJobs({ createdAfter: t0 + 10, createdBefore: t0 + 30 })).toEqual({
      RUNNING: 1,
      SUCCESS: 1,
    });
    expect(await store.countJobs({ parentId: 'j1' })).toEqual({ RUNNING: 1 });
    expect(await store.countJobs({ workflow: 'none' })).toEqual({});
  });

  it('reports unfinished jobs, stream depths, live and expired leases, dead letters and steps', async () => {
    expect(await store.storeStats(clock.now())).toEqual({ jobs: {}, streams: [], steps: 0 });
    expect(await store.lastStep()).toBe(0);
    await store.createJob({ id: 'j1', workflow: 'a', version: 1, model: 'graph', input: null });
    for (const [id, state] of [
      ['r1', 'RUNNING'],
      ['s1', 'SUSPENDED'],
      ['d1', 'SUCCESS'],
      ['d2', 'FAILURE'],
      ['d3', 'REVERTED'],
    ] as const) {
      await store.createJob({ id, workflow: 'a', version: 1, model: 'graph', input: null, state });
    }
    await store.append([
      { stream: 's', job: 'j1', payload: 1 },
      { stream: 's', job: 'j1', payload: 2 },
      { stream: 's', job: 'j1', payload: 3 },
      { stream: 't', job: 'j1', payload: 4 },
    ]);
    await store.claim('s', { consumer: 'c1', max: 1, leaseMs: 1000 });
    await clock.advance(5000);
    await store.claim('s', { consumer: 'c2', max: 1, leaseMs: 60_000 });
    const [held] = await store.claim('t', { consumer: 'c3', max: 1, leaseMs: 60_000 });
    await store.deadLetter('t', held?.id as string, 'c3', 'gave up');
    await store.appendHistory([
      { job: 'j1', kind: 'start', change: {} },
      { job: 'j1', kind: 'enter', activity: 'x', change: {} },
    ]);
    await store.putActivity({ job: 'j1', activity: 'x', status: 'SUCCESS', attempt: 3 });
    await store.putActivity({ job: 'j1', activity: 'y', status: 'SUCCESS', attempt: 2 });
    const stats = await store.storeStats(clock.now());
    // Finished jobs are not read at a scrape: the workers count them as they end.
    expect(stats.jobs).toEqual({ PENDING: 1, RUNNING: 1, SUSPENDED: 1 });
    expect(stats.streams).toEqual([
      { stream: 's', messages: 3, claimed: 1, expiredLeases: 1, deadLetters: 0 },
      { stream: 't', messages: 0, claimed: 0, expiredLeases: 0, deadLetters: 1 },
    ]);
    expect(stats.steps).toBeGreaterThanOrEqual(2);
    const step = await store.lastStep();
    expect(step).toBe(stats.steps);
    await store.appendHistory([{ job: 'j1', kind: 'end', change: {} }]);
    expect(await store.lastStep()).toBeGreaterThan(step);
  });
});
