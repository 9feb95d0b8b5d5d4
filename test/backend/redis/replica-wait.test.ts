/**
 * Redis only, one server with a replica (issue 23, docs/store-redis.md section 5):
 * `?wait=1` acknowledges a commit once the replica has it; with the replica gone a commit
 * fails with `StoreError` `STORE_NOT_REPLICATED` after `waitTimeout`, and — `WAIT` rolls
 * nothing back — the master kept it, so readers see it. The store warns at open when the
 * master has fewer replicas than `wait` asks for. Over HTTP, such a commit is a 503 that
 * says the change was made and does not invite a retry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import { startDashboard } from '../../../src/server/dashboard.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { rawRequest } from '../../support/raw-http.js';
import { withNode } from '../../support/redis-cluster.js';
import { type RedisServer, startRedisServer, stopRedisServer } from '../../support/redis-server.js';
import { backend, redisCluster, redisGap, skipBackend } from '../../support/store-under-test.js';

const stores: Store[] = [];
const servers: RedisServer[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => {})));
  for (const s of servers.splice(0)) stopRedisServer(s);
});

const job = (id: string) => ({
  id,
  workflow: 'w',
  version: 1,
  model: 'graph' as const,
  input: null,
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the master at `port` has `count` replicas whose link is up. */
async function untilReplicas(port: number, count: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const info = await withNode(port, (r) => r.info('replication'));
    const online = info.match(/^slave\d+:.*state=online/gm)?.length ?? 0;
    if (online >= count) return;
    await sleep(50);
  }
  throw new Error(`the master at ${port} did not get ${count} replicas in 30 s`);
}

async function startReplica(masterPort: number): Promise<RedisServer> {
  const replica = await startRedisServer({
    args: ['--replicaof', '127.0.0.1', String(masterPort)],
  });
  servers.push(replica);
  return replica;
}

async function open(url: string, warnings: string[] = []): Promise<Store> {
  const store = await openStore(url, { onWarning: (m) => warnings.push(m) });
  stores.push(store);
  return store;
}

// One server (the cluster's failover is failover.test.ts); it starts servers of its own.
describe.skipIf(backend !== 'redis' || redisCluster || skipBackend)(
  'Redis store with ?wait=1 on one server and its replica',
  () => {
    // Three servers and two full syncs. In some runs it hangs (past 60 s, and past 180 s
    // in a plain `npm test` on 27 Nov; 2.6 s in the CI run before): not found yet, so it
    // runs only with WEFT_TEST_REDIS=all. The cluster's failover test checks `?wait`.
    it.skipIf(redisGap('hangs in some runs, not found yet'))(
      'acknowledges commits the replica has; with the replica gone a commit fails with STORE_NOT_REPLICATED, and the master kept it',
      {
        timeout: 180_000,
      },
      async () => {
        // A replica's first sync starts at once (Redis waits 5 s for more replicas by default).
        const master = await startRedisServer({ args: ['--repl-diskless-sync-delay', '0'] });
        servers.push(master);
        const replica = await startReplica(master.port);
        await untilReplicas(master.port, 1);
        const url = `redis://127.0.0.1:${master.port}/0?wait=1&waitTimeout=2000`;
        const warnings: string[] = [];
        const store = await open(url, warnings);
        expect(warnings).toEqual([]);

        // Acknowledged: on the replica once the call returns (nothing to wait for there).
        await store.createJob({ ...job('acked'), state: 'RUNNING' });
        await store.transaction(async (tx) => {
          await tx.updateJob('acked', { context: { n: 1 } });
          await tx.appendHistory([{ job: 'acked', kind: 'start', change: { n: 1 } }]);
        });
        const onReplica = await withNode(replica.port, (r) => r.keys('weft:*acked*'));
        const onMaster = await withNode(master.port, (r) => r.keys('weft:*acked*'));
        expect(onReplica.sort()).toEqual(onMaster.sort());
        expect(onReplica.length).toBeGreaterThan(0);

        // The replica goes away: the next commit is applied by the master, not acknowledged.
        stopRedisServer(replica);
        await new Promise((resolve) => replica.child.once('exit', resolve));
        let error: unknown;
        try {
          await store.createJob({ ...job('unacked'), state: 'RUNNING' });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('STORE_NOT_REPLICATED');
        expect((error as StoreError).message).toMatch(
          /applied on the Redis master at redis:\/\/127\.0\.0\.1:\d+\/0\?wait=1&waitTimeout=2000, but 0 of the 1 replicas \?wait=1 asks for had it after 2000 ms; it is not acknowledged/,
        );
        // Now that the master is known short of replicas, a commit fails at once (no WAIT
        // blocking the connection for its timeout), as long as too few are connected.
        const next = await store.updateJob('acked', { context: { n: 3 } }).then(
          () => undefined,
          (e: unknown) => e as StoreError,
        );
        expect(next?.code).toBe('STORE_NOT_REPLICATED');
        expect(next?.message).toMatch(/it has 0 of the 1 replicas \?wait=1 asks for connected/);
        // WAIT rolls nothing back: readers of this master see the job the caller was refused.
        expect((await store.getJob('unacked'))?.state).toBe('RUNNING');
        expect((await store.getJob('acked'))?.context).toEqual({ n: 3 });

        // A store opened now is told that the master has fewer replicas than it asks for.
        const later: string[] = [];
        await open(url, later);
        expect(later).toHaveLength(1);
        expect(later[0]).toMatch(
          /has 0 replicas connected and \?wait=1 asks for 1: every commit there fails with STORE_NOT_REPLICATED after 2000 ms/,
        );

        // A replica back: commits are acknowledged again, and it has what the master kept
        // (a store that waits longer: a replica that has just synced may be slow to answer
        // on a busy machine).
        const back = await startReplica(master.port);
        await untilReplicas(master.port, 1);
        const patient: string[] = [];
        const again = await open(
          `redis://127.0.0.1:${master.port}/0?wait=1&waitTimeout=10000`,
          patient,
        );
        expect(patient).toEqual([]);
        await again.updateJob('unacked', { context: { n: 2 } });
        expect((await withNode(back.port, (r) => r.keys('weft:*unacked*'))).length).toBeGreaterThan(
          0,
        );
      },
    );

    it('without ?wait a commit is acknowledged whether or not a replica has it', async () => {
      const master = await startRedisServer();
      servers.push(master);
      const warnings: string[] = [];
      const store = await open(`redis://127.0.0.1:${master.port}/0`, warnings);
      await store.createJob({ ...job('alone'), state: 'RUNNING' });
      expect((await store.getJob('alone'))?.state).toBe('RUNNING');
      expect(warnings).toEqual([]);
    });
  },
);

describe.skipIf(backend !== 'redis' || redisCluster || skipBackend)(
  'the HTTP answer to a change no replica confirmed',
  () => {
    it('is a 503 that says the change was made, with no Retry-After; the change is there', async () => {
      // A master with no replica: every commit with ?wait=1 is applied and not confirmed.
      const master = await startRedisServer();
      servers.push(master);
      const base = `redis://127.0.0.1:${master.port}/0`;
      const plain = await open(base);
      await plain.createJob({ ...job('held'), state: 'RUNNING' });
      const waiting = await open(`${base}?wait=1&waitTimeout=100`);
      const dashboard = await startDashboard({
        store: waiting,
        port: 0,
        logger: { info() {}, error() {}, warn() {} },
      });
      try {
        const answer = await rawRequest(dashboard.url, {
          method: 'POST',
          path: '/api/jobs/held/cancel',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(answer.status, answer.text).toBe(503);
        expect(answer.headers['retry-after']).toBeUndefined();
        expect(answer.json.error).toMatchObject({
          name: 'StoreError',
          code: 'STORE_NOT_REPLICATED',
        });
        expect(answer.json.error.message).toContain('a retry may make it twice');
        expect(answer.text).not.toContain(String(master.port));
        // Applied on the master all the same.
        expect((await plain.getJob('held'))?.state).not.toBe('RUNNING');
      } finally {
        await dashboard.close();
      }
    });
  },
);
