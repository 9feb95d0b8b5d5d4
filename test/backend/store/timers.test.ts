/** Conformance: timers — fire once (even with 4 stores firing at once), cancel, replace by key. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { FiredTimer, Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const T0 = Date.UTC(2026, 0, 1);
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

const timer = (key: string, at: number, payload: unknown = { key }) => ({
  key,
  at,
  message: { stream: 'wake', job: 'j', payload: payload as { key: string } },
});

describe('timers', () => {
  it('fires due timers into their streams, oldest first, and only due ones', async () => {
    await store.scheduleTimer(timer('late', T0 + 200));
    await store.scheduleTimer(timer('early', T0 + 100));
    await store.scheduleTimer(timer('future', T0 + 10_000));
    expect(await store.nextTimerAt()).toBe(T0 + 100);
    expect(await store.fireDueTimers(T0 + 99)).toEqual([]);
    const fired = await store.fireDueTimers(T0 + 200);
    expect(fired.map((f) => [f.key, f.at])).toEqual([
      ['early', T0 + 100],
      ['late', T0 + 200],
    ]);
    const messages = await store.peek('wake');
    expect(messages.map((m) => m.id)).toEqual(fired.map((f) => f.messageId));
    expect(messages.map((m) => [m.payload, m.job])).toEqual([
      [{ key: 'early' }, 'j'],
      [{ key: 'late' }, 'j'],
    ]);
    expect(await store.fireDueTimers(T0 + 200)).toEqual([]);
    expect(await store.nextTimerAt()).toBe(T0 + 10_000);
  });

  it('fires at most `max` at a time', async () => {
    for (let i = 0; i < 5; i++) await store.scheduleTimer(timer(`t${i}`, T0 + i));
    expect(await store.fireDueTimers(T0 + 10, 2)).toHaveLength(2);
    expect(await store.fireDueTimers(T0 + 10, 10)).toHaveLength(3);
  });

  it('cancel removes a pending timer', async () => {
    await store.scheduleTimer(timer('t', T0));
    expect(await store.cancelTimer('t')).toBe(true);
    expect(await store.cancelTimer('t')).toBe(false);
    expect(await store.fireDueTimers(T0 + 1000)).toEqual([]);
    expect(await store.nextTimerAt()).toBeUndefined();
  });

  it('scheduling an existing key replaces that timer', async () => {
    await store.scheduleTimer(timer('t', T0 + 100, 'first'));
    await store.scheduleTimer(timer('t', T0 + 200, 'second'));
    expect(await store.fireDueTimers(T0 + 150)).toEqual([]);
    expect(await store.fireDueTimers(T0 + 200)).toHaveLength(1);
    expect((await store.peek('wake')).map((m) => m.payload)).toEqual(['second']);
  });

  it('each due timer fires once with 4 stores firing concurrently', async () => {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 300; i++) await tx.scheduleTimer(timer(`k${i}`, T0 + (i % 7)));
    });
    const firers = await Promise.all(Array.from({ length: 4 }, () => openStore(url)));
    try {
      const fired: FiredTimer[] = [];
      await Promise.all(
        firers.map(async (firer) => {
          for (;;) {
            const batch = await firer.fireDueTimers(T0 + 10, 8);
            if (batch.length === 0) return;
            fired.push(...batch);
          }
        }),
      );
      expect(fired).toHaveLength(300);
      expect(new Set(fired.map((f) => f.key)).size).toBe(300);
      expect(await store.countMessages('wake')).toBe(300);
    } finally {
      await Promise.all(firers.map((f) => f.close()));
    }
  });
});
