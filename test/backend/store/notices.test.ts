/**
 * Conformance: notices — a stream subscriber is woken by appends from this store and
 * from another connection (on SQLite, the data_version poll); a job subscriber when its
 * job ends; unsubscribe stops wake-ups. Wake-ups may be spurious, so tests only wait
 * for the wake-ups they expect.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let store: Store;
let url: string;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  ({ store, url, close } = await openTestStore());
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

function counter() {
  const c = { calls: 0, listener: () => void c.calls++ };
  return c;
}

describe('notices', () => {
  it('an append on this store wakes a stream subscriber', async () => {
    const c = counter();
    const off = await store.subscribe({ kind: 'stream', name: 'work' }, c.listener);
    await store.append([{ stream: 'work', payload: 1 }]);
    await waitFor(() => c.calls > 0, 'a stream notice');
    await off();
  });

  it('an append by another connection wakes a stream subscriber', async () => {
    const other = await openStore(url);
    try {
      const c = counter();
      const off = await store.subscribe({ kind: 'stream', name: 'work' }, c.listener);
      await other.append([{ stream: 'work', payload: 1 }]);
      await waitFor(() => c.calls > 0, 'a notice from another connection');
      await off();
    } finally {
      await other.close();
    }
  });

  it('a committed transaction wakes the streams it appended to, a timer its stream', async () => {
    const work = counter();
    const wake = counter();
    await store.subscribe({ kind: 'stream', name: 'work' }, work.listener);
    await store.subscribe({ kind: 'stream', name: 'wake' }, wake.listener);
    await store.transaction(async (tx) => {
      await tx.append([{ stream: 'work', payload: 1 }]);
      await tx.scheduleTimer({ key: 't', at: 0, message: { stream: 'wake', payload: 2 } });
    });
    await waitFor(() => work.calls > 0, 'the work stream notice');
    await store.fireDueTimers(Date.now());
    await waitFor(() => wake.calls > 0, 'the timer stream notice');
  });

  it('a delivered signal wakes its waiter’s stream', async () => {
    const c = counter();
    await store.subscribe({ kind: 'stream', name: 'hooks' }, c.listener);
    await store.registerWaiter({ key: 'k', message: { stream: 'hooks', payload: {} } });
    await store.deliverSignal('k', true);
    await waitFor(() => c.calls > 0, 'the signal notice');
  });

  it('a job subscriber is woken when the job ends, also from another connection', async () => {
    const other = await openStore(url);
    try {
      await store.createJob({ id: 'j', workflow: 'w', version: 1, model: 'graph', input: null });
      await store.createJob({ id: 'k', workflow: 'w', version: 1, model: 'graph', input: null });
      const j = counter();
      const k = counter();
      await store.subscribe({ kind: 'job', id: 'j' }, j.listener);
      await store.subscribe({ kind: 'job', id: 'k' }, k.listener);
      await store.setJobState('j', 'PENDING', 'RUNNING');
      await store.setJobState('j', 'RUNNING', 'SUCCESS', { output: 1 });
      await waitFor(() => j.calls > 0, 'the job notice');
      await other.setJobState('k', 'PENDING', 'RUNNING');
      await other.setJobState('k', 'RUNNING', 'FAILURE');
      await waitFor(() => k.calls > 0, 'the job notice from another connection');
    } finally {
      await other.close();
    }
  });

  it('unsubscribe stops a listener; others on the same notice still hear it', async () => {
    const kept = counter();
    const dropped = counter();
    await store.subscribe({ kind: 'stream', name: 'work' }, kept.listener);
    const off = await store.subscribe({ kind: 'stream', name: 'work' }, dropped.listener);
    await off();
    await off();
    await store.append([{ stream: 'work', payload: 1 }]);
    await waitFor(() => kept.calls > 0, 'the kept listener');
    expect(dropped.calls).toBe(0);
  });
});
