/** Conformance: signals — to a waiter, buffered before its waiter, expired when too old. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import type { NewWaiter, Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const DAY = 24 * 60 * 60 * 1000;
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

const waiter = (key: string): NewWaiter => ({
  key,
  job: 'j',
  message: { stream: 'hooks', job: 'j', payload: { activity: 'approve' } },
});

describe('signals', () => {
  it('a signal goes to the waiter registered for its key', async () => {
    expect(await store.registerWaiter(waiter('j:approve'))).toEqual({ status: 'buffered' });
    const outcome = await store.deliverSignal('j:approve', { ok: true });
    expect(outcome.status).toBe('delivered');
    const [message] = await store.peek('hooks');
    expect(message).toMatchObject({
      id: outcome.messageId,
      job: 'j',
      payload: { activity: 'approve', signal: { ok: true } },
    });
    // The waiter is used up: the next signal is buffered.
    expect(await store.deliverSignal('j:approve', 2)).toEqual({ status: 'buffered' });
  });

  it('a signal before its waiter is buffered and received when the waiter registers', async () => {
    expect(await store.deliverSignal('j:approve', 'first')).toEqual({ status: 'buffered' });
    await store.deliverSignal('j:approve', 'second');
    expect(await store.countMessages('hooks')).toBe(0);
    const outcome = await store.registerWaiter(waiter('j:approve'));
    expect(outcome.status).toBe('delivered');
    expect((await store.peek('hooks')).map((m) => m.payload)).toEqual([
      { activity: 'approve', signal: 'first' },
    ]);
    const next = await store.registerWaiter(waiter('j:approve'));
    expect(next.status).toBe('delivered');
    expect((await store.peek('hooks'))[1]?.payload).toEqual({
      activity: 'approve',
      signal: 'second',
    });
  });

  it('an expired buffered signal is not delivered', async () => {
    await store.deliverSignal('j:approve', 'stale', { ttlMs: 1000 });
    await clock.advance(1000);
    expect(await store.registerWaiter(waiter('j:approve'))).toEqual({ status: 'buffered' });
    expect(await store.countMessages('hooks')).toBe(0);
    expect((await store.deliverSignal('j:approve', 'fresh')).status).toBe('delivered');
    expect((await store.peek('hooks'))[0]?.payload).toEqual({
      activity: 'approve',
      signal: 'fresh',
    });
  });

  it('keeps a buffered signal 7 days by default', async () => {
    await store.deliverSignal('a', 1);
    await store.deliverSignal('b', 2);
    await clock.advance(7 * DAY - 1);
    expect((await store.registerWaiter(waiter('a'))).status).toBe('delivered');
    await clock.advance(1);
    expect((await store.registerWaiter(waiter('b'))).status).toBe('buffered');
  });

  it('removeWaiter removes a waiter, so a later signal is buffered', async () => {
    await store.registerWaiter(waiter('k'));
    expect(await store.removeWaiter('k')).toBe(true);
    expect(await store.removeWaiter('k')).toBe(false);
    expect(await store.deliverSignal('k', 1)).toEqual({ status: 'buffered' });
  });

  it('wraps a waiter payload that is not an object', async () => {
    await store.registerWaiter({ key: 'k', message: { stream: 'hooks', payload: 'raw' } });
    await store.deliverSignal('k', 5);
    expect((await store.peek('hooks'))[0]?.payload).toEqual({ payload: 'raw', signal: 5 });
  });
});
