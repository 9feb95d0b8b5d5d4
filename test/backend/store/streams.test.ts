/** Conformance: streams — claims, leases, acks, releases, dead letters. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.js';
import { openStore } from '../../../src/store/open-store.js';
import { UNLIMITED } from '../../../src/store/queue-admission.js';
import type { Json, QueueRecord, Store } from '../../../src/store/store.js';
import { claimThroughQueue } from '../../../src/store/task-queue-claim.js';
import { openTestStore } from '../../support/store-under-test.js';

let clock: SimulatedClock;
let store: Store;
let url: string;
let close: (() => Promise<void>) | undefined;
beforeEach(async () => {
  clock = new SimulatedClock();
  ({ store, url, close } = await openTestStore({ clock }));
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

const appendN = (n: number, stream = 's') =>
  store.append(Array.from({ length: n }, (_, i) => ({ stream, payload: { n: i }, job: 'j' })));

describe('append, peek and count', () => {
  it('returns ids in order and keeps messages until acked', async () => {
    const ids = await appendN(3);
    await store.append([{ stream: 'other', payload: 'x' }]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const peeked = await store.peek('s');
    expect(peeked.map((m) => m.id)).toEqual(ids);
    expect(peeked[0]).toMatchObject({
      stream: 's',
      payload: { n: 0 },
      job: 'j',
      deliveries: 0,
      consumer: null,
      leaseUntil: null,
      createdAt: clock.now(),
      availableAt: clock.now(),
    });
    expect(await store.countMessages('s')).toBe(3);
    expect(await store.countMessages()).toBe(4);
    expect(await store.peek('s', 2)).toHaveLength(2);
  });

  it('reads page sizes the same way on every store: whole, never negative', async () => {
    await appendN(3);
    expect(await store.peek('s', 2.7)).toHaveLength(2);
    expect(await store.peek('s', 0)).toEqual([]);
    expect(await store.peek('s', -1)).toEqual([]);
    expect(await store.listDeadLetters('s', -1)).toEqual([]);
  });
});

describe('claim', () => {
  it('claims the oldest messages first with a lease', async () => {
    const ids = await appendN(5);
    const claimed = await store.claim('s', { consumer: 'c1', max: 3, leaseMs: 1000 });
    expect(claimed.map((m) => m.id)).toEqual(ids.slice(0, 3));
    expect(claimed[0]).toMatchObject({
      consumer: 'c1',
      deliveries: 1,
      leaseUntil: clock.now() + 1000,
      payload: { n: 0 },
    });
    expect((await store.claim('s', { consumer: 'c1', leaseMs: 1000 })).map((m) => m.id)).toEqual([
      ids[3],
    ]);
  });

  it('two consumers never hold the same message', async () => {
    await appendN(20);
    const a = await store.claim('s', { consumer: 'a', max: 7, leaseMs: 1000 });
    const b = await store.claim('s', { consumer: 'b', max: 7, leaseMs: 1000 });
    const c = await store.claim('s', { consumer: 'c', max: 10, leaseMs: 1000 });
    const all = [...a, ...b, ...c].map((m) => m.id);
    expect(all).toHaveLength(20);
    expect(new Set(all).size).toBe(20);
    expect(await store.claim('s', { consumer: 'd', max: 10, leaseMs: 1000 })).toEqual([]);
  });

  it('concurrent claims from separately opened stores are disjoint', async () => {
    await appendN(200);
    const others = await Promise.all(Array.from({ length: 4 }, () => openStore(url, { clock })));
    try {
      const held: string[] = [];
      await Promise.all(
        others.map(async (other, i) => {
          for (;;) {
            const got = await other.claim('s', { consumer: `c${i}`, max: 7, leaseMs: 60_000 });
            if (got.length === 0) return;
            held.push(...got.map((m) => m.id));
          }
        }),
      );
      expect(held).toHaveLength(200);
      expect(new Set(held).size).toBe(200);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('maxHeld: claims no more than the held messages of the stream leave room for', async () => {
    await appendN(10);
    const opts = (consumer: string) => ({ consumer, max: 10, leaseMs: 1000, maxHeld: 3 });
    const a = await store.transaction((tx) => tx.claim('s', opts('a')));
    expect(a).toHaveLength(3);
    expect(await store.transaction((tx) => tx.claim('s', opts('b')))).toEqual([]);
    await store.ack('s', a[0]?.id as string, 'a');
    expect(await store.transaction((tx) => tx.claim('s', opts('b')))).toHaveLength(1);
    // An expired lease holds nothing.
    await clock.advance(1000);
    expect(await store.transaction((tx) => tx.claim('s', opts('c')))).toHaveLength(3);
  });

  it('maxHeld holds across concurrent claims from separately opened stores', async () => {
    await appendN(40);
    const others = await Promise.all(Array.from({ length: 4 }, () => openStore(url, { clock })));
    try {
      const got = await Promise.all(
        others.map((other, i) =>
          other.transaction((tx) =>
            tx.claim('s', { consumer: `c${i}`, max: 5, leaseMs: 60_000, maxHeld: 6 }),
          ),
        ),
      );
      expect(got.flat()).toHaveLength(6);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('claims through a queue: picks are held under their keys across streams until acked, released or expired', async () => {
    const ids = await appendN(3);
    const [other] = await store.append([{ stream: 't', payload: { input: 'x' } }]);
    expect((await store.claimableMessages('s', clock.now(), 2)).map((m) => m.id)).toEqual(
      ids.slice(0, 2),
    );
    const queued = { consumer: 'a', leaseMs: 1000, queue: 'q' };
    const got = await store.transaction((tx) =>
      tx.claimQueued(
        's',
        [
          { id: ids[0] as string, key: 'k1' },
          { id: ids[1] as string, key: 'k2' },
        ],
        queued,
      ),
    );
    expect(got.map((m) => [m.id, m.consumer, m.deliveries])).toEqual([
      [ids[0], 'a', 1],
      [ids[1], 'a', 1],
    ]);
    await store.transaction((tx) =>
      tx.claimQueued('t', [{ id: other as string, key: 'k1' }], { ...queued, consumer: 'b' }),
    );
    const held = async () =>
      (await store.queueHeld('q', clock.now())).sort((x, y) => (x.key < y.key ? -1 : 1));
    expect(await held()).toEqual([
      { key: 'k1', running: 2 },
      { key: 'k2', running: 1 },
    ]);
    // A message held already (or of another stream) is left out of a claim.
    expect(
      await store.transaction((tx) =>
        tx.claimQueued('s', [{ id: ids[0] as string, key: 'k1' }], { ...queued, consumer: 'c' }),
      ),
    ).toEqual([]);
    expect(await store.claimableMessages('s', clock.now(), 10)).toHaveLength(1);
    await store.ack('s', ids[0] as string, 'a');
    await store.release('s', ids[1] as string, 'a', 5000);
    expect(await held()).toEqual([{ key: 'k1', running: 1 }]);
    await clock.advance(1000);
    expect(await held()).toEqual([]);
    // A lease that ran out: claimed through the queue again, it says who held it.
    const [again] = await store.transaction((tx) =>
      tx.claimQueued('t', [{ id: other as string, key: 'k3' }], { ...queued, consumer: 'd' }),
    );
    expect(again).toMatchObject({ id: other, consumer: 'd', deliveries: 2, previousConsumer: 'b' });
    expect(await held()).toEqual([{ key: 'k3', running: 1 }]);
  });

  it('claims through a queue hold its concurrency across two streams and concurrent stores', async () => {
    await appendN(20);
    await store.append(Array.from({ length: 20 }, (_, i) => ({ stream: 't', payload: i })));
    await putQueue({ concurrency: 5 });
    const others = await Promise.all(Array.from({ length: 4 }, () => openStore(url, { clock })));
    try {
      const got = await Promise.all(
        others.map((other, i) =>
          other.transaction((tx) =>
            claimThroughQueue(
              tx,
              i % 2 === 0 ? 's' : 't',
              { queue: 'q' },
              { consumer: `c${i}`, leaseMs: 60_000, max: 4 },
              clock.now(),
            ),
          ),
        ),
      );
      expect(got.flatMap((g) => g.claimed)).toHaveLength(5);
      expect(await store.queueHeld('q', clock.now())).toEqual([{ key: '', running: 5 }]);
      expect((await store.queueCounts()).find((c) => c.queue === 'q')?.attempts).toBe(5);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  it('pages the claimable messages after one it returned, in claim order', async () => {
    const ids = await appendN(5);
    const first = await store.claimableMessages('s', clock.now(), 2);
    expect(first.map((m) => m.id)).toEqual(ids.slice(0, 2));
    const next = await store.claimableMessages('s', clock.now(), 2, first.at(-1));
    expect(next.map((m) => m.id)).toEqual(ids.slice(2, 4));
    const last = await store.claimableMessages('s', clock.now(), 2, next.at(-1));
    expect(last.map((m) => m.id)).toEqual(ids.slice(4));
  });

  it('a claim through a queue reads past a busy key at its limit to the keys behind it', async () => {
    // 500 messages of key a (one at a time), then one of key b: more than a window.
    await store.append([
      ...Array.from({ length: 500 }, () => ({ stream: 's', payload: { key: 'a' } })),
      { stream: 's', payload: { key: 'b' } },
    ]);
    await putQueue({ keyConcurrency: 1 });
    const place = { queue: 'q', keyOf: (payload: Json) => (payload as { key: string }).key };
    const claim = (consumer: string) =>
      store.transaction((tx) =>
        claimThroughQueue(tx, 's', place, { consumer, leaseMs: 60_000, max: 4 }, clock.now()),
      );
    const first = await claim('c1');
    expect(first.claimed.map((m) => m.payload)).toEqual([{ key: 'a' }, { key: 'b' }]);
    // Key a holds its one slot and b's only message is taken: nothing more to claim.
    expect((await claim('c2')).claimed).toEqual([]);
  });

  it('does not deliver a message before its availableAt', async () => {
    await store.append([{ stream: 's', payload: 'later', availableAt: clock.now() + 500 }]);
    expect(await store.claim('s', { consumer: 'c', leaseMs: 100 })).toEqual([]);
    await clock.advance(500);
    expect(await store.claim('s', { consumer: 'c', leaseMs: 100 })).toHaveLength(1);
  });

  it("a claim inside a transaction takes that transaction's own appends, after the committed ones", async () => {
    const [committed] = await appendN(1);
    await store.transaction(async (tx) => {
      const [own, later] = await tx.append([
        { stream: 's', payload: 'own' },
        { stream: 's', payload: 'not yet', availableAt: clock.now() + 500 },
      ]);
      const claimed = await tx.claim('s', { consumer: 'c', max: 10, leaseMs: 1000 });
      expect(claimed.map((m) => [m.id, m.consumer, m.deliveries])).toEqual([
        [committed, 'c', 1],
        [own, 'c', 1],
      ]);
      expect(claimed.map((m) => m.id)).not.toContain(later);
    });
    // Committed held: nobody else gets it until its lease ends, and its holder acks it.
    expect(await store.claim('s', { consumer: 'd', leaseMs: 1000 })).toEqual([]);
    expect(await store.countMessages('s')).toBe(3);
    const [, own] = (await store.peek('s', 10)).map((m) => m.id);
    expect(await store.ack('s', own as string, 'c')).toBe(true);
  });

  it('claims nothing with max 0 and nothing from an empty stream', async () => {
    await appendN(1);
    expect(await store.claim('s', { consumer: 'c', max: 0, leaseMs: 100 })).toEqual([]);
    expect(await store.claim('empty', { consumer: 'c', leaseMs: 100 })).toEqual([]);
  });
});

/** Stores queue `q` with these limits and no others. */
function putQueue(limits: Partial<QueueRecord>): Promise<void> {
  return store.putQueue({
    ...UNLIMITED,
    name: 'q',
    source: 'test',
    createdAt: clock.now(),
    updatedAt: clock.now(),
    ...limits,
  });
}

describe('leases', () => {
  it('an expired lease is delivered again, and the old holder can no longer ack', async () => {
    const [id] = await appendN(1);
    await store.claim('s', { consumer: 'first', leaseMs: 1000 });
    expect(await store.claim('s', { consumer: 'second', leaseMs: 1000 })).toEqual([]);
    await clock.advance(1000);
    const [again] = await store.claim('s', { consumer: 'second', leaseMs: 1000 });
    expect(again).toMatchObject({ id, consumer: 'second', deliveries: 2 });
    expect(await store.ack('s', id as string, 'first')).toBe(false);
    expect(await store.ack('s', id as string, 'second')).toBe(true);
    expect(await store.ack('s', id as string, 'second')).toBe(false);
    expect(await store.countMessages('s')).toBe(0);
  });

  it('ack checks the stream and rejects ids that are not message ids', async () => {
    const [id] = await appendN(1);
    await store.claim('s', { consumer: 'c', leaseMs: 1000 });
    expect(await store.ack('elsewhere', id as string, 'c')).toBe(false);
    expect(await store.ack('s', 'not-an-id', 'c')).toBe(false);
    expect(await store.countMessages('s')).toBe(1);
  });

  it('extendLease keeps a message held past its first lease', async () => {
    const [id] = (await appendN(1)) as [string];
    await store.claim('s', { consumer: 'c', leaseMs: 1000 });
    await clock.advance(900);
    expect(await store.extendLease('s', [id, '999999'], 'c', 1000)).toEqual([id]);
    await clock.advance(900);
    expect(await store.claim('s', { consumer: 'other', leaseMs: 1000 })).toEqual([]);
    expect(await store.extendLease('s', [id], 'other', 1000)).toEqual([]);
    expect((await store.peek('s'))[0]?.leaseUntil).toBe(clock.now() - 900 + 1000);
    expect(await store.ack('s', id, 'c')).toBe(true);
  });

  it('release gives a message back, claimable after its delay', async () => {
    const [id] = (await appendN(1)) as [string];
    await store.claim('s', { consumer: 'c', leaseMs: 10_000 });
    expect(await store.release('s', id, 'someone-else')).toBe(false);
    expect(await store.release('s', id, 'c', 500)).toBe(true);
    expect((await store.peek('s'))[0]).toMatchObject({ consumer: null, leaseUntil: null });
    expect(await store.claim('s', { consumer: 'c', leaseMs: 1000 })).toEqual([]);
    await clock.advance(500);
    const [again] = await store.claim('s', { consumer: 'd', leaseMs: 1000 });
    expect(again).toMatchObject({ id, deliveries: 2, consumer: 'd' });
    expect(await store.release('s', id, 'd')).toBe(true);
    expect(await store.claim('s', { consumer: 'e', leaseMs: 1000 })).toHaveLength(1);
  });

  it('reclaimExpired frees expired leases so the old holder loses them', async () => {
    const [a, b] = (await appendN(2)) as [string, string];
    await store.claim('s', { consumer: 'c', leaseMs: 1000, max: 1 });
    await clock.advance(500);
    await store.claim('s', { consumer: 'c', leaseMs: 1000, max: 1 });
    await clock.advance(600);
    expect(await store.reclaimExpired('s')).toEqual({ reclaimed: 1, deadLettered: 0 });
    expect(await store.ack('s', a, 'c')).toBe(false);
    expect(await store.ack('s', b, 'c')).toBe(true);
    expect(await store.reclaimExpired('s')).toEqual({ reclaimed: 0, deadLettered: 0 });
  });

  it('remove deletes messages whoever holds them', async () => {
    const ids = await appendN(3);
    await store.claim('s', { consumer: 'c', leaseMs: 1000 });
    expect(await store.remove('s', [ids[0] as string, ids[2] as string, 'bogus'])).toBe(2);
    expect(await store.remove('other', [ids[1] as string])).toBe(0);
    expect((await store.peek('s')).map((m) => m.id)).toEqual([ids[1]]);
  });
});

describe('dead letters', () => {
  it('a message past maxDeliveries is dead-lettered, listed, and can be requeued', async () => {
    const [id] = (await appendN(1)) as [string];
    await store.append([{ stream: 'other', payload: 'keep' }]);
    for (let i = 1; i <= 2; i++) {
      const [m] = await store.claim('s', { consumer: 'c', leaseMs: 100, maxDeliveries: 2 });
      expect(m).toMatchObject({ id, deliveries: i });
      await clock.advance(100);
    }
    expect(await store.claim('s', { consumer: 'c', leaseMs: 100, maxDeliveries: 2 })).toEqual([]);
    expect(await store.countMessages('s')).toBe(0);
    const dead = await store.listDeadLetters('s');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ stream: 's', payload: { n: 0 }, job: 'j', deliveries: 2 });
    expect(dead[0]?.reason).toMatch(/2/);
    expect(dead[0]?.deadAt).toBe(clock.now());
    expect(await store.listDeadLetters()).toHaveLength(1);
    expect(await store.listDeadLetters('other')).toEqual([]);

    const newId = await store.requeueDeadLetter(dead[0]?.id as string);
    expect(newId).toBeDefined();
    expect(await store.listDeadLetters()).toEqual([]);
    const [back] = await store.claim('s', { consumer: 'c', leaseMs: 100, maxDeliveries: 2 });
    expect(back).toMatchObject({ id: newId, deliveries: 1, payload: { n: 0 } });
    expect(await store.requeueDeadLetter(dead[0]?.id as string)).toBeUndefined();
  });

  it('keeps the error a message was released with, and carries it to its dead letter', async () => {
    const [id] = (await appendN(1)) as [string];
    const claim = () => store.claim('s', { consumer: 'c', leaseMs: 100, maxDeliveries: 2 });
    const [first] = await claim();
    expect(first?.lastError ?? null).toBeNull();
    const boom = { name: 'TypeError', message: 'boom', code: 'X' };
    expect(await store.release('s', id, 'c', 0, boom)).toBe(true);
    const [second] = await claim();
    expect(second).toMatchObject({ id, deliveries: 2, lastError: boom });
    // A release without an error keeps the one recorded before.
    expect(await store.release('s', id, 'c')).toBe(true);
    expect(await claim()).toEqual([]);
    const [dead] = await store.listDeadLetters('s');
    expect(dead).toMatchObject({ id, deliveries: 2, lastError: boom });
    expect(await store.getDeadLetter(id)).toEqual(dead);
    expect(await store.getDeadLetter('999999')).toBeUndefined();
    expect(await store.getDeadLetter('bogus')).toBeUndefined();
  });

  it('deadLetter moves a held message aside at once, only for its holder', async () => {
    const [id, other] = (await appendN(2)) as [string, string];
    await store.claim('s', { consumer: 'c', leaseMs: 1000, max: 2 });
    await store.release('s', other, 'c', 0, { name: 'Error', message: 'nope' });
    expect(await store.deadLetter('s', id, 'someone-else', 'why')).toBeUndefined();
    expect(await store.deadLetter('s', other, 'c', 'why')).toBeUndefined();
    const dead = await store.transaction((tx) =>
      tx.deadLetter('s', id, 'c', 'delivered 1 times; maxDeliveries is 1'),
    );
    expect(dead).toMatchObject({
      id,
      stream: 's',
      job: 'j',
      payload: { n: 0 },
      deliveries: 1,
      reason: 'delivered 1 times; maxDeliveries is 1',
      lastError: null,
      deadAt: clock.now(),
    });
    expect((await store.peek('s')).map((m) => m.id)).toEqual([other]);
    expect(await store.listDeadLetters()).toEqual([dead]);
  });

  it('a held message is not dead-lettered while its lease runs', async () => {
    await appendN(1);
    await store.claim('s', { consumer: 'c', leaseMs: 1000 });
    expect(await store.reclaimExpired('s', { maxDeliveries: 1 })).toEqual({
      reclaimed: 0,
      deadLettered: 0,
    });
    await clock.advance(1000);
    expect(await store.reclaimExpired('s', { maxDeliveries: 1 })).toEqual({
      reclaimed: 0,
      deadLettered: 1,
    });
    expect(await store.listDeadLetters('s')).toHaveLength(1);
  });
});

describe('parking a job’s messages (pause and resume)', () => {
  it('moves them out and back; one not yet due keeps its time, one due is due at once', async () => {
    await store.append([
      { stream: 'task:a', payload: 'due', job: 'j' },
      { stream: 'engine', payload: 'later', job: 'j', availableAt: clock.now() + 60_000 },
      { stream: 'task:a', payload: 'other job', job: 'k' },
    ]);
    expect(await store.parkMessages('j', 'park:j')).toBe(2);
    expect((await store.peek('task:a')).map((m) => m.payload)).toEqual(['other job']);
    expect(await store.peek('engine')).toEqual([]);

    await clock.advance(10_000);
    expect(await store.unparkMessages('j', 'park:j')).toBe(2);
    const claim = (stream: string) =>
      store.claim(stream, { consumer: 'w', leaseMs: 1000, max: 10 });
    expect((await claim('task:a')).map((m) => m.payload).sort()).toEqual(['due', 'other job']);
    // A pause does not move a delayed message's time: still 50 s to go, then claimable.
    expect(await claim('engine')).toEqual([]);
    expect((await store.peek('engine'))[0]?.availableAt).toBe(clock.now() + 50_000);
    await clock.advance(50_000);
    expect((await claim('engine')).map((m) => m.payload)).toEqual(['later']);
  });
});
