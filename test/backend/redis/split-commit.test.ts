/**
 * Redis Cluster only: a commit over several slots (src/store/redis/split-commit.ts) whose
 * client dies between its scripts ends whole or not at all. A client is played dying
 * after each phase (its hook throws there, so nothing after runs); a real store opened on
 * the same cluster resolves what it left within a few seconds, by its own sweep. This is
 * the failure the chaos test found on the cluster: a step that registered a waiter in the
 * signal key's partition was written, the waiter was not, and the job waited for ever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { CommitPlan } from '../../../src/store/redis/commit-script.js';
import { connect, type RedisConnection } from '../../../src/store/redis/connection.js';
import { fenceKey, splitRecordKey } from '../../../src/store/redis/keys.js';
import {
  type SlotPart,
  SPLIT_LEASE_MS,
  SplitCommits,
  type SplitPhase,
} from '../../../src/store/redis/split-commit.js';
import type { Store } from '../../../src/store/store.js';
import { parseStoreUrl } from '../../../src/store/url.js';
import {
  freshStoreUrl,
  redisCluster,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

let location: TestStoreLocation | undefined;
let raw: RedisConnection | undefined;
const stores: Store[] = [];
beforeEach(async () => {
  if (!redisCluster || skipBackend) return;
  location = await freshStoreUrl();
  raw = await connect(parseStoreUrl(location.url) as Parameters<typeof connect>[0]);
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  raw?.disconnect();
  raw = undefined;
  await location?.cleanup();
});

const TAGS = ['g', ...Array.from({ length: 16 }, (_, p) => `p${p}`)];

/** A commit of two parts: a field that must be new in `{p1}`, and one in `{p2}`. */
function parts(value: string): SlotPart[] {
  const plan = new CommitPlan();
  plan.checkField('weft:{p1}:t:a', 'f', undefined);
  plan.hset('weft:{p1}:t:a', [['f', value]]);
  plan.checkField('weft:{p2}:t:b', 'f', undefined);
  plan.hset('weft:{p2}:t:b', [['f', value]]);
  return [...plan.bySlot()].map(([tag, part]) => ({ tag, part }));
}

/** A client that dies at `phase`: what it wrote stays, nothing after it runs. */
function dyingAt(phase: SplitPhase): SplitCommits {
  return new SplitCommits(raw as RedisConnection, TAGS, (at) => {
    if (at === phase) throw new Error(`client died after ${at}`);
  });
}

async function written(): Promise<(string | null)[]> {
  const r = raw as RedisConnection;
  return [await r.hget('weft:{p1}:t:a', 'f'), await r.hget('weft:{p2}:t:b', 'f')];
}

/** How many of `keys` exist (one command each: they are in several slots). */
async function present(...keys: string[]): Promise<number> {
  const found = await Promise.all(keys.map((k) => (raw as RedisConnection).exists(k)));
  return found.reduce((a, b) => a + b, 0);
}

/** Waits until `check` holds, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!redisCluster || skipBackend)('split commits on a Redis Cluster', () => {
  it('writes every part when nobody dies, and leaves no fence or record', async () => {
    const split = new SplitCommits(raw as RedisConnection, TAGS);
    expect(await split.commit(parts('x'))).toEqual({ status: 'ok' });
    expect(await written()).toEqual(['x', 'x']);
    expect(await present(fenceKey('p1'), fenceKey('p2'), splitRecordKey('p1'))).toBe(0);
    // Run again, the check of the primary part refuses it: nothing is written twice.
    expect((await split.commit(parts('y'))).status).toBe('conflict');
    expect(await written()).toEqual(['x', 'x']);
    expect(await present(fenceKey('p2'))).toBe(0);
  });

  it('finishes a commit whose client died after its commit point: the other part is written', async () => {
    await expect(dyingAt('committed').commit(parts('x'))).rejects.toThrow('died');
    // Half done: the primary part with its record, the other part's fence still up.
    expect(await written()).toEqual(['x', null]);
    const r = raw as RedisConnection;
    expect(await r.hlen(splitRecordKey('p1'))).toBe(1);
    expect(await r.get(fenceKey('p2'))).toMatch(/^p1\//);
    const store = await openStore((location as TestStoreLocation).url);
    stores.push(store);
    await until(async () => (await written())[1] === 'x', SPLIT_LEASE_MS + 5_000);
    expect(await written()).toEqual(['x', 'x']);
    await until(async () => (await present(fenceKey('p2'), splitRecordKey('p1'))) === 0, 2_000);
  });

  it('gives up a commit whose client died before its commit point, and refuses its primary part for good', async () => {
    const stalled = dyingAt('prepared');
    await expect(stalled.commit(parts('x'))).rejects.toThrow('died');
    const r = raw as RedisConnection;
    const token = (await r.get(fenceKey('p2'))) as string;
    expect(token).toMatch(/^p1\//);
    // While the fence is young, another commit checking in its slot waits.
    const other = new SplitCommits(r, TAGS);
    expect(await other.commit(parts('y'))).toMatchObject({ status: 'conflict', field: 'fence' });
    const store = await openStore((location as TestStoreLocation).url);
    stores.push(store);
    await until(async () => (await present(fenceKey('p2'))) === 0, SPLIT_LEASE_MS + 5_000);
    expect(await written()).toEqual([null, null]);
    // The stalled client wakes and writes its primary part: refused, as given up.
    const late = parts('x')[0] as SlotPart;
    const { keys, args } = late.part
      .primary(fenceKey('p1'), `weft:{p1}:split:abort:${token}`, splitRecordKey('p1'), token, '[]')
      .encode();
    expect(await r.weftCommit(keys.length, keys.concat(args))).toEqual([
      'conflict',
      `weft:{p1}:split:abort:${token}`,
      'aborted',
    ]);
    // The slot is free again: the next commit goes through whole.
    expect(await other.commit(parts('y'))).toEqual({ status: 'ok' });
    expect(await written()).toEqual(['y', 'y']);
  });

  it('resolves a dead client’s fence for a transaction of the store that waits on it', async () => {
    const store = await openStore((location as TestStoreLocation).url);
    stores.push(store);
    await store.createJob({ id: 'j', workflow: 'w', version: 1, model: 'graph', input: null });
    const r = raw as RedisConnection;
    // A dead client's fence on every partition, two leases old.
    const token = `g/${Date.now() - 2 * SPLIT_LEASE_MS}/00000000-0000-4000-8000-000000000000`;
    await Promise.all(TAGS.slice(1).map((t) => r.set(fenceKey(t), token)));
    await store.updateJob('j', { output: 'moved' });
    expect((await store.getJob('j'))?.output).toBe('moved');
    // The store's sweep takes the others away too.
    await until(async () => (await present(...TAGS.map(fenceKey))) === 0, 5_000);
  });

  it('sweeps a store of many partitions in turns, so every slot is visited', async () => {
    const many = ['g', ...Array.from({ length: 200 }, (_, p) => `p${p}`)];
    const sweeper = new SplitCommits(raw as RedisConnection, many);
    const token = `g/${Date.now() - 2 * SPLIT_LEASE_MS}/00000000-0000-4000-8000-000000000001`;
    await (raw as RedisConnection).set(fenceKey('p150'), token);
    // 64 slots a sweep: p150 is in the third.
    expect(await sweeper.sweep()).toBe(0);
    expect(await sweeper.sweep()).toBe(0);
    expect(await present(fenceKey('p150'))).toBe(1);
    expect(await sweeper.sweep()).toBe(1);
    expect(await present(fenceKey('p150'))).toBe(0);
  });
});
