/**
 * Redis only (issue 23, phase 1): what the conformance suite cannot see of the Redis
 * store. Two transactions that decide on one job both commit, one after the other (the
 * one that lost runs again and sees the other's write: no lost update); semaphores are
 * hash fields moved by HINCRBY and a collation key past 64 bits is kept exactly; opening refuses a server
 * that is not there and a layout it does not know; a committed step survives a SIGKILL of
 * redis-server (appendonly yes, appendfsync always).
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { freePort } from '../../support/free-port.js';
import {
  killRedisServer,
  type RedisServer,
  startRedisServer,
  stopRedisServer,
} from '../../support/redis-server.js';
import {
  backend,
  freshStoreUrl,
  redisCluster,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

let location: TestStoreLocation;
const stores: Store[] = [];
const raws: Redis[] = [];
beforeEach(async () => {
  if (backend === 'redis' && !redisCluster && !skipBackend) location = await freshStoreUrl();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const r of raws.splice(0)) r.disconnect();
  await location?.cleanup();
});

async function open(url: string, options = {}): Promise<Store> {
  const store = await openStore(url, options);
  stores.push(store);
  return store;
}

/** A plain connection to the store's database, to look behind the store. */
function raw(url: string): Redis {
  const r = new Redis(url);
  r.on('error', () => {});
  raws.push(r);
  return r;
}

const job = (id: string) => ({
  id,
  workflow: 'w',
  version: 1,
  model: 'graph' as const,
  input: null,
});

// One server only: these look behind the store with a plain connection (the cluster's own
// tests are in redis-cluster.test.ts).
describe.skipIf(backend !== 'redis' || redisCluster || skipBackend)('Redis store', () => {
  it('two transactions that lock one job and write it both commit, the loser run again on the winner’s write', async () => {
    const store = await open(location.url);
    await store.createJob({ ...job('j'), state: 'RUNNING' });
    await store.updateJob('j', { context: { n: 0 } });
    let runs = 0;
    let release = () => {};
    const bothRead = new Promise<void>((resolve) => {
      let read = 0;
      release = () => {
        if (++read === 2) resolve();
      };
    });
    const increment = () =>
      store.transaction(async (tx) => {
        runs++;
        const locked = await tx.lockJob('j');
        const n = (locked?.context as { n: number } | undefined)?.n ?? -1;
        // Both first attempts read n = 0 before either writes.
        if (runs <= 2) {
          release();
          await bothRead;
        }
        await tx.updateJob('j', { context: { n: n + 1 } });
      });
    await Promise.all([increment(), increment()]);
    expect((await store.getJob('j'))?.context).toEqual({ n: 2 });
    expect(runs).toBe(3);
  });

  it('runs a transaction again, instead of failing, when its journal read shows an entry a commit added after its lock', async () => {
    // The worker's code-first path: lock the job, read its journal, append the next entry.
    // A lock on Redis keeps nobody out, so another commit can land between the two reads;
    // the entry it added is then no duplicate of this one but a sign the plan is stale.
    const store = await open(location.url);
    const other = await open(location.url);
    await store.createJob({ ...job('j'), state: 'RUNNING' });
    let runs = 0;
    await store.transaction(async (tx) => {
      runs++;
      const locked = await tx.lockJob('j');
      if (runs === 1) {
        await other.transaction(async (o) => {
          await o.lockJob('j');
          await o.appendJournal([{ job: 'j', seq: 1, kind: 'k', key: 'other', data: 1 }]);
          await o.updateJob('j', { context: { journal: 1 } });
        });
      }
      // The locked head counts the entries (as a code-first job's does); the journal is
      // read after it, as the engine reads it when its cache misses.
      await tx.readJournal('j');
      const next = ((locked?.context as { journal?: number } | null)?.journal ?? 0) + 1;
      await tx.appendJournal([{ job: 'j', seq: next, kind: 'k', key: 'mine', data: 2 }]);
      await tx.updateJob('j', { context: { journal: next } });
    });
    expect(runs).toBe(2);
    expect((await store.readJournal('j')).map((e) => [e.seq, e.key])).toEqual([
      [1, 'other'],
      [2, 'mine'],
    ]);
    // A duplicate the transaction could have known about is still refused.
    await expect(
      store.transaction(async (tx) => {
        await tx.lockJob('j');
        await tx.appendJournal([{ job: 'j', seq: 2, kind: 'k', key: 'again', data: 3 }]);
      }),
    ).rejects.toMatchObject({ code: 'STORE_DUPLICATE' });
  });

  it('keeps a semaphore as a hash field moved by HINCRBY, and a collation key past 64 bits exactly', async () => {
    const store = await open(location.url);
    const semaphore = { job: 'j', activity: 'a', field: 'semaphore' };
    await store.addCounter(semaphore, -100_000_000_000_000n, 999_000_000_000_000n);
    const collation = { job: 'j', field: 'collation' };
    const key = 9n * 10n ** 30n;
    await store.addCounter(collation, 0n, key);
    expect(await store.addCounter(collation, -(10n ** 29n))).toBe(key - 10n ** 29n);
    // One hash per (job, dimensional thread): `weft:{p0}:ctr:<job>␟<dimension>`.
    const stored = await raw(location.url).hgetall('weft:{p0}:ctr:j\u001f');
    expect(stored).toEqual({
      'a\u001fsemaphore': '899000000000000',
      '\u001fcollation': (key - 10n ** 29n).toString(),
    });
  });

  it('refuses a server that is not there, naming where without the password', async () => {
    const port = await freePort();
    const error = await openStore(`redis://weft:s3cret@127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'STORE_UNREACHABLE' });
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('records its layout version, and migrate: false refuses a database without one', async () => {
    const error = await openStore(location.url, { migrate: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SCHEMA_OUTDATED' });
    const store = await open(location.url);
    expect(store.migration).toEqual({ from: 0, to: 1, applied: ['redis-layout-1'] });
    expect(await raw(location.url).hget('weft:{g}:meta', 'layout')).toBe('1');
    await raw(location.url).hset('weft:{g}:meta', 'layout', '99');
    await expect(openStore(location.url)).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' });
  });

  it('warns at open, naming the setting, when the server would lose committed steps in a crash', async () => {
    const warnings: string[] = [];
    const onWarning = (m: string) => warnings.push(m);
    await open(location.url, { onWarning });
    expect(warnings).toEqual([]);
    const admin = raw(location.url);
    try {
      await admin.config('SET', 'appendfsync', 'everysec');
      await open(location.url, { onWarning });
      await admin.config('SET', 'appendonly', 'no');
      await open(location.url, { onWarning });
    } finally {
      await admin.config('SET', 'appendonly', 'yes');
      await admin.config('SET', 'appendfsync', 'always');
    }
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('appendfsync everysec');
    expect(warnings[1]).toContain('appendonly no');
    expect(warnings[0]).toContain('127.0.0.1');
  });

  it('a committed transaction survives a SIGKILL of redis-server', async () => {
    let server: RedisServer | undefined = await startRedisServer();
    try {
      const url = `redis://127.0.0.1:${server.port}/0`;
      const store = await openStore(url);
      await store.transaction(async (tx) => {
        await tx.createJob(job('kept'));
        await tx.addCounter({ job: 'kept', field: 'collation' }, 0n, 999n);
        await tx.appendHistory([{ job: 'kept', kind: 'start', change: { n: 1 } }]);
      });
      killRedisServer(server);
      await store.close().catch(() => {});
      const { port, dir } = server;
      // A server that died by itself leaves its directory (and AOF) to its watchdog's caller.
      server = await startRedisServer({ port, dir });
      const reopened = await open(url);
      expect((await reopened.getJob('kept'))?.workflow).toBe('w');
      expect(await reopened.getCounter({ job: 'kept', field: 'collation' })).toBe(999n);
      expect((await reopened.historyOfJob('kept')).map((e) => e.kind)).toEqual(['start']);
    } finally {
      if (server) stopRedisServer(server);
    }
  });
});
