/**
 * Conformance: appending a message already claimed (`NewMessage.claim`) — held by its
 * consumer from the start, as if claimed in the same transaction, with no notice; a
 * worker uses it for the work it runs itself after the commit.
 */
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

const claim = { consumer: 'me', leaseMs: 30_000 };

describe('append already claimed', () => {
  it('holds the message for its consumer: delivered once, leased, not claimable by others', async () => {
    const [id] = await store.append([{ stream: 's', payload: { n: 1 }, job: 'j', claim }]);
    expect(await store.peek('s')).toMatchObject([
      {
        id,
        payload: { n: 1 },
        job: 'j',
        deliveries: 1,
        consumer: 'me',
        leaseUntil: clock.now() + 30_000,
        availableAt: clock.now() + 30_000,
      },
    ]);
    expect(await store.claim('s', { consumer: 'other', leaseMs: 1000, max: 10 })).toEqual([]);
    expect(await store.extendLease('s', [id as string], 'me', 60_000)).toEqual([id]);
    expect(await store.ack('s', id as string, 'me')).toBe(true);
    expect(await store.countMessages('s')).toBe(0);
  });

  it('is claimable again when its lease ends, like any claim', async () => {
    const [id] = await store.append([{ stream: 's', payload: 1, claim }]);
    clock.advance(30_001);
    const [again] = await store.claim('s', { consumer: 'other', leaseMs: 1000 });
    expect(again).toMatchObject({ id, consumer: 'other', deliveries: 2 });
    expect(await store.ack('s', id as string, 'me')).toBe(false);
  });

  it('keeps ids in the order of the messages when claimed and unclaimed ones are mixed', async () => {
    const ids = await store.transaction((tx) =>
      tx.append([
        { stream: 's', payload: 'a' },
        { stream: 's', payload: 'b', claim },
        { stream: 's', payload: 'c' },
        { stream: 's', payload: 'd', claim },
      ]),
    );
    const byId = new Map((await store.peek('s')).map((m) => [m.id, m]));
    expect(ids.map((id) => byId.get(id)?.payload)).toEqual(['a', 'b', 'c', 'd']);
    expect(ids.map((id) => byId.get(id)?.consumer)).toEqual([null, 'me', null, 'me']);
    const free = await store.claim('s', { consumer: 'other', leaseMs: 1000, max: 10 });
    expect(free.map((m) => m.payload).sort()).toEqual(['a', 'c']);
  });

  it('sends no notice for it (a later append to another stream is heard first)', async () => {
    const heard: string[] = [];
    const offHeld = await store.subscribe({ kind: 'stream', name: 'held' }, () =>
      heard.push('held'),
    );
    let later: () => void = () => {};
    const laterHeard = new Promise<void>((resolve) => {
      later = resolve;
    });
    const offLater = await store.subscribe({ kind: 'stream', name: 'later' }, () => {
      heard.push('later');
      later();
    });
    await store.append([{ stream: 'held', payload: 1, claim }]);
    await store.append([{ stream: 'later', payload: 2 }]);
    await laterHeard;
    await offHeld();
    await offLater();
    expect(heard).not.toContain('held');
  });

  it('never holds a message before its availableAt: a delayed one is appended unclaimed, claimable when due', async () => {
    const due = clock.now() + 5000;
    const ids = await store.transaction((tx) =>
      tx.append([
        { stream: 's', payload: 'later', availableAt: due, claim },
        { stream: 's', payload: 'now', claim },
      ]),
    );
    const byId = new Map((await store.peek('s')).map((m) => [m.id, m]));
    expect(byId.get(ids[0] as string)).toMatchObject({
      payload: 'later',
      consumer: null,
      deliveries: 0,
      availableAt: due,
    });
    expect(byId.get(ids[1] as string)).toMatchObject({ payload: 'now', consumer: 'me' });
    // Nobody, its appender included, claims it before its time.
    expect(await store.claim('s', { consumer: 'me', leaseMs: 1000, max: 10 })).toEqual([]);
    clock.advance(4999);
    expect(await store.claim('s', { consumer: 'other', leaseMs: 1000, max: 10 })).toEqual([]);
    clock.advance(1);
    const [claimed] = await store.claim('s', { consumer: 'other', leaseMs: 1000, max: 10 });
    expect(claimed).toMatchObject({ id: ids[0], payload: 'later', deliveries: 1 });
  });
});
