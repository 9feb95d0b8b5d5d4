/**
 * Redis only (issue 23): handing work on is a Redis Stream entry. Every message the store
 * keeps has an entry in `weft:{p}:s:<stream>`, added by the commit that appends it; the
 * consumer group `weft`'s pending-entries list names the worker holding it and its
 * delivery count (a claim `XCLAIM`s it, a lease taken over moves it, a release or an
 * expiry made claimable takes it out with `XACK`), and an ack `XACK`s and `XDEL`s it, in
 * the same script as the step's other writes: a parent's ack and its child's entry are
 * one atomic step. Runs on one server and on the three-master cluster.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { ENGINE_STREAM, taskStream } from '../../../src/engine/messages.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import {
  auditStreams,
  entries,
  partitionOfMessage,
  pending,
  plainRedis,
  streamKey,
} from '../../support/redis-stream-audit.js';
import {
  backend,
  freshStoreUrl,
  redisCluster,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

let location: TestStoreLocation;
let store: Store;
let raw: Redis | Cluster;
let clock: SimulatedClock;
beforeEach(async () => {
  if (backend !== 'redis' || skipBackend) return;
  location = await freshStoreUrl();
  clock = new SimulatedClock(Date.now());
  store = await openStore(location.url, { clock });
  raw = plainRedis(location.url);
});
afterEach(async () => {
  if (backend !== 'redis' || skipBackend) return;
  await store.close();
  raw.disconnect();
  await location.cleanup();
});

/** A message's Redis Stream key (its partition's) and its entry id. */
async function where(stream: string, id: string): Promise<{ key: string; xid: string }> {
  const P = await partitionOfMessage(raw, id);
  const found = (await entries(raw, streamKey(P, stream))).find((e) => e.fields.id === id);
  return { key: streamKey(P, stream), xid: found?.xid ?? '' };
}

describe.skipIf(backend !== 'redis' || skipBackend)('hand-offs as Redis Streams', () => {
  it('an append is an entry, a claim names its holder and delivery count, an ack leaves nothing', async () => {
    const [parent] = await store.append([{ stream: 'orders', payload: { n: 1 } }]);
    const at = await where('orders', parent as string);
    expect(await entries(raw, at.key)).toEqual([{ xid: at.xid, fields: { id: parent } }]);
    expect(await pending(raw, at.key)).toEqual([]);

    await store.claim('orders', { consumer: 'worker-a', leaseMs: 1000 });
    expect(await pending(raw, at.key)).toEqual([
      { xid: at.xid, consumer: 'worker-a', deliveries: 1 },
    ]);

    // The lease runs out on the store's clock; another worker's claim moves the entry.
    await clock.advance(1001);
    const [taken] = await store.claim('orders', { consumer: 'worker-b', leaseMs: 1000 });
    expect(taken?.previousConsumer).toBe('worker-a');
    expect(await pending(raw, at.key)).toEqual([
      { xid: at.xid, consumer: 'worker-b', deliveries: 2 },
    ]);

    // Given back: the entry stays, nobody holds it.
    expect(await store.release('orders', parent as string, 'worker-b')).toBe(true);
    expect((await entries(raw, at.key)).map((e) => e.xid)).toEqual([at.xid]);
    expect(await pending(raw, at.key)).toEqual([]);

    // A claim inside a transaction that rolls back gives the pending entry back too.
    await store
      .transaction(async (tx) => {
        await tx.claim('orders', { consumer: 'worker-c', leaseMs: 1000 });
        throw new Error('rolled back');
      })
      .catch(() => {});
    expect(await pending(raw, at.key)).toEqual([]);

    await store.claim('orders', { consumer: 'worker-c', leaseMs: 1000 });
    expect(await pending(raw, at.key)).toEqual([
      { xid: at.xid, consumer: 'worker-c', deliveries: 3 },
    ]);

    // The parent's ack and its child's entry: one commit.
    const [child] = await store.transaction(async (tx) => {
      const ids = await tx.append([{ stream: 'shipping', payload: { n: 1 } }]);
      expect(await tx.ack('orders', parent as string, 'worker-c')).toBe(true);
      return ids;
    });
    expect(await raw.xlen(at.key)).toBe(0);
    expect(await pending(raw, at.key)).toEqual([]);
    const next = await where('shipping', child as string);
    expect((await entries(raw, next.key)).map((e) => e.fields.id)).toEqual([child]);
    const P = await partitionOfMessage(raw, child as string);
    expect(await raw.hget(`weft:{p${P}}:msg:${child}`, 'xid')).toBe(next.xid);

    // Dead-lettered: gone from the stream and the pending list.
    await store.claim('shipping', { consumer: 'worker-d', leaseMs: 1000 });
    expect(await store.deadLetter('shipping', child as string, 'worker-d', 'broken')).toBeDefined();
    expect(await raw.xlen(next.key)).toBe(0);
    expect(await pending(raw, next.key)).toEqual([]);
    if (!redisCluster) expect(await auditStreams(raw as Redis)).toEqual([]);
  });

  it('a message appended held is pending for its holder at once; a lease given back by expiry leaves the list', async () => {
    const [id] = await store.append([
      { stream: 'orders', payload: null, claim: { consumer: 'worker-a', leaseMs: 500 } },
    ]);
    const at = await where('orders', id as string);
    expect(await pending(raw, at.key)).toEqual([
      { xid: at.xid, consumer: 'worker-a', deliveries: 1 },
    ]);
    await clock.advance(501);
    expect((await store.reclaimExpired('orders')).reclaimed).toBe(1);
    expect(await pending(raw, at.key)).toEqual([]);
    expect(await raw.xlen(at.key)).toBe(1);
    if (!redisCluster) expect(await auditStreams(raw as Redis)).toEqual([]);
  });

  it("a workflow's hand-offs are entries while they wait, and no entry is left when it ends", async () => {
    const client = new Client(store, { clock });
    const workflow = compileWorkflow(`
workflow: handoffs
activities:
  start: { kind: trigger }
  pack:  { kind: task }
  ship:  { kind: task }
transitions: { start: [pack], pack: [ship] }
`);
    await client.deploy(workflow);
    const runs: string[] = [];
    const stepper = new EngineStepper(
      store,
      {
        pack: async () => {
          runs.push('pack');
          return 'packed';
        },
        ship: async () => {
          runs.push('ship');
          return 'shipped';
        },
      },
      clock,
    );
    const job = await client.start('handoffs', {});
    const streams = [ENGINE_STREAM, taskStream('pack'), taskStream('ship')];
    const seen = new Set<string>();
    for (let steps = 0; steps < 50; steps++) {
      // Every message waiting is an entry of its stream, naming its id and its job.
      for (const stream of streams) {
        for (const m of await store.peek(stream, 100)) {
          const at = await where(stream, m.id);
          expect(at.xid, `${stream} ${m.id}`).not.toBe('');
          const [entry] = (await entries(raw, at.key)).filter((e) => e.xid === at.xid);
          expect(entry?.fields).toEqual({ id: m.id, job: job.id });
          seen.add(stream);
        }
      }
      if (!redisCluster) expect(await auditStreams(raw as Redis)).toEqual([]);
      if (!(await stepper.step())) break;
    }
    expect([...seen].sort()).toEqual([...streams].sort());
    expect(runs).toEqual(['pack', 'ship']);
    expect((await client.status(job.id)).state).toBe('SUCCESS');
    const partitions = Number((await raw.hget('weft:{g}:meta', 'partitions')) ?? '1');
    for (let P = 0; P < partitions; P++) {
      for (const stream of streams) {
        expect(await raw.xlen(streamKey(P, stream))).toBe(0);
        expect(await pending(raw, streamKey(P, stream))).toEqual([]);
      }
    }
  });
});
