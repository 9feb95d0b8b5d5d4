/**
 * Conformance: a unit of work (one engine step) commits all or nothing — also when its
 * process is SIGKILLed just before or just after the commit — and a unit whose ack
 * fails changes nothing. This is the seed's chain of custody.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { LeaseLostError } from '../../../src/core/errors.js';
import type { Store, StreamMessage, UnitOfWork } from '../../../src/store/store.js';
import { applyUnit, commitUnit } from '../../../src/store/unit-of-work.js';
import { spawnTestChild } from '../../support/child-process.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let clock: SimulatedClock;
let store: Store;
let url: string;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  // The clock starts at the real time so leases taken by child processes (on the system
  // clock) can be expired here by advancing it.
  clock = new SimulatedClock(Date.now());
  ({ store, url, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const unitFor = (id: string, consumer: string): UnitOfWork => ({
  ack: { stream: 'work', id, consumer },
  append: [{ stream: 'children', job: 'j', payload: { child: 1 } }],
  counters: [
    { ref: { job: 'j', field: 'collation' }, delta: -100n, initial: 999n },
    { ref: { job: 'j', activity: 'a1', field: 'semaphore' }, delta: 1n },
  ],
  activities: [{ job: 'j', activity: 'a1', status: 'SUCCESS', output: 42 }],
  timers: [{ key: 't1', at: clock.now() + 1000, message: { stream: 'wake', payload: {} } }],
});

async function expectNoTrace(job: string, timerKey: string): Promise<void> {
  expect(await store.countMessages('children')).toBe(0);
  expect(await store.listCounters(job)).toEqual(new Map());
  expect(await store.listActivities(job)).toEqual([]);
  expect(await store.cancelTimer(timerKey)).toBe(false);
}

describe('unit of work', () => {
  it('commits the ack, children, counters, activity writes and timers together', async () => {
    const [id] = (await store.append([{ stream: 'work', payload: 'step' }])) as [string];
    await store.claim('work', { consumer: 'me', leaseMs: 1000 });
    const result = await commitUnit(store, unitFor(id, 'me'));
    expect(result.counters).toEqual([899n, 1n]);
    expect(result.messageIds).toHaveLength(1);
    expect(await store.countMessages('work')).toBe(0);
    expect((await store.peek('children'))[0]?.payload).toEqual({ child: 1 });
    expect(await store.getCounter({ job: 'j', field: 'collation' })).toBe(899n);
    expect((await store.getActivity('j', 'a1'))?.output).toBe(42);
    expect(await store.nextTimerAt()).toBe(clock.now() + 1000);
  });

  it('a unit whose ack fails (lease lost) changes nothing', async () => {
    const [id] = (await store.append([{ stream: 'work', payload: 'step' }])) as [string];
    await store.claim('work', { consumer: 'me', leaseMs: 1000 });
    await clock.advance(1000);
    await store.claim('work', { consumer: 'thief', leaseMs: 1000 });
    await expect(commitUnit(store, unitFor(id, 'me'))).rejects.toBeInstanceOf(LeaseLostError);
    await expectNoTrace('j', 't1');
    expect((await store.peek('work'))[0]?.consumer).toBe('thief');
  });

  it('a throw after the unit inside the transaction rolls all of it back', async () => {
    const [id] = (await store.append([{ stream: 'work', payload: 'step' }])) as [string];
    await store.claim('work', { consumer: 'me', leaseMs: 1000 });
    const boom = new Error('after the unit');
    await expect(
      store.transaction(async (tx) => {
        await applyUnit(tx, unitFor(id, 'me'));
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expectNoTrace('j', 't1');
    expect(await store.countMessages('work')).toBe(1);
  });

  it('a process SIGKILLed before commit leaves no trace; the message is claimable after its lease', async () => {
    const [id] = (await store.append([{ stream: 'work', payload: 'step' }])) as [string];
    const child = spawnTestChild('unit-child.ts', [url, 'before-commit']);
    try {
      await child.waitForLine('APPLIED');
    } finally {
      child.process.kill('SIGKILL');
    }
    expect(await child.exited).toBe('SIGKILL');

    await expectNoTrace('crash-job', 'crash-timer');
    expect(await store.countMessages('work')).toBe(1);
    expect(await store.claim('work', { consumer: 'next', leaseMs: 1000 })).toEqual([]);
    await clock.advance(10 * 60_000);
    // The server ends the killed process's session, and its locks, once it sees the
    // connection drop; on PostgreSQL that can take a moment, so poll the claim.
    let again: StreamMessage | undefined;
    await waitFor(async () => {
      [again] = await store.claim('work', { consumer: 'next', leaseMs: 1000 });
      return again !== undefined;
    }, 'the message to be claimable again');
    expect(again).toMatchObject({ id, deliveries: 2 });
  }, 120_000);

  it('a process SIGKILLed right after commit left the whole unit', async () => {
    await store.append([{ stream: 'work', payload: 'step' }]);
    const child = spawnTestChild('unit-child.ts', [url, 'after-commit']);
    try {
      await child.waitForLine('COMMITTED');
    } finally {
      child.process.kill('SIGKILL');
    }
    expect(await child.exited).toBe('SIGKILL');

    expect(await store.countMessages('work')).toBe(0);
    expect((await store.peek('children')).map((m) => m.payload)).toEqual([
      { child: 1 },
      { child: 2 },
    ]);
    expect(Object.fromEntries(await store.listCounters('crash-job'))).toEqual({
      collation: 899n,
      'a1//semaphore': 1n,
    });
    expect((await store.getActivity('crash-job', 'a1'))?.status).toBe('SUCCESS');
    expect(await store.cancelTimer('crash-timer')).toBe(true);
  }, 120_000);
});
