/** Conformance: activity data — upserts that keep what a write leaves out. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

let clock: SimulatedClock;
let store: Store;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  clock = new SimulatedClock();
  ({ store, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('activities', () => {
  it('upserts, keeping the fields a write leaves out', async () => {
    await store.putActivity({ job: 'j', activity: 'a', status: 'RUNNING', input: { x: 1 } });
    const first = await store.getActivity('j', 'a');
    expect(first).toMatchObject({
      job: 'j',
      activity: 'a',
      dimension: '',
      status: 'RUNNING',
      input: { x: 1 },
      output: null,
      error: null,
      attempt: 0,
      updatedAt: clock.now(),
    });
    await clock.advance(10);
    await store.putActivity({
      job: 'j',
      activity: 'a',
      status: 'SUCCESS',
      output: [1, 2],
      attempt: 2,
    });
    expect(await store.getActivity('j', 'a', '')).toMatchObject({
      status: 'SUCCESS',
      input: { x: 1 },
      output: [1, 2],
      attempt: 2,
      updatedAt: clock.now(),
    });
    await store.putActivity({ job: 'j', activity: 'a', error: { name: 'E', message: 'm' } });
    await store.putActivity({ job: 'j', activity: 'a', output: null });
    expect(await store.getActivity('j', 'a')).toMatchObject({
      status: 'SUCCESS',
      output: null,
      error: { name: 'E', message: 'm' },
    });
  });

  it('keeps when an activity started and ended, and a write that leaves them out keeps them', async () => {
    await store.putActivity({ job: 'j', activity: 'a', status: 'PENDING' });
    expect(await store.getActivity('j', 'a')).toMatchObject({ startedAt: null, finishedAt: null });
    await store.putActivity({ job: 'j', activity: 'a', status: 'RUNNING', startedAt: 1_000 });
    await store.putActivity({
      job: 'j',
      activity: 'a',
      attempt: 2,
      error: { name: 'E', message: 'm' },
    });
    expect(await store.getActivity('j', 'a')).toMatchObject({
      status: 'RUNNING',
      attempt: 2,
      startedAt: 1_000,
      finishedAt: null,
    });
    await store.putActivity({
      job: 'j',
      activity: 'a',
      status: 'SUCCESS',
      finishedAt: 1_700_000_000_123,
    });
    const [ended] = await store.listActivities('j');
    expect(ended).toMatchObject({ startedAt: 1_000, finishedAt: 1_700_000_000_123 });
    expect(typeof ended?.finishedAt).toBe('number');
    await store.putActivity({ job: 'j', activity: 'a', finishedAt: null });
    expect(await store.getActivity('j', 'a')).toMatchObject({ startedAt: 1_000, finishedAt: null });
  });

  it('keeps dimensions apart and lists a job’s activities', async () => {
    await store.putActivity({ job: 'j', activity: 'b', status: 'PENDING' });
    await store.putActivity({ job: 'j', activity: 'a', dimension: ',1', status: 'RUNNING' });
    await store.putActivity({ job: 'j', activity: 'a', status: 'SUCCESS' });
    await store.putActivity({ job: 'k', activity: 'a', status: 'SUCCESS' });
    expect((await store.getActivity('j', 'a', ',1'))?.status).toBe('RUNNING');
    expect(await store.getActivity('j', 'zzz')).toBeUndefined();
    const listed = await store.listActivities('j');
    expect(listed.map((a) => [a.activity, a.dimension, a.status])).toEqual([
      ['a', '', 'SUCCESS'],
      ['a', ',1', 'RUNNING'],
      ['b', '', 'PENDING'],
    ]);
  });
});
