/**
 * Redis Cluster only (issue 23, `WEFT_TEST_STORE=redis-cluster`): what the conformance
 * suite cannot see of the store on a three-master cluster. A workload of parent and child
 * workflows, run by a real worker, leaves its jobs on every master, each child in its
 * parent's partition (one slot per step); the partition count is fixed when the store is
 * first created and kept in `weft:{g}:meta`.
 */
import { Cluster } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { redisCluster as cluster, withNode } from '../../support/redis-cluster.js';
import {
  freshStoreUrl,
  redisCluster,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

let location: TestStoreLocation | undefined;
const stores: Store[] = [];
let worker: Worker | undefined;
beforeEach(async () => {
  if (redisCluster && !skipBackend) location = await freshStoreUrl();
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await location?.cleanup();
});

async function open(url: string): Promise<Store> {
  const store = await openStore(url);
  stores.push(store);
  return store;
}

/** Every job key on each master: node port → `weft:{pN}:job:<id>` keys. */
async function jobKeysByNode(): Promise<Map<number, string[]>> {
  const { nodes } = await cluster();
  const out = new Map<number, string[]>();
  for (const node of nodes) {
    out.set(node.port, await withNode(node.port, (r) => r.keys('weft:{p*}:job:*')));
  }
  return out;
}

describe.skipIf(!redisCluster || skipBackend)('Redis store on a three-master Redis Cluster', () => {
  it('runs parent and child workflows with their jobs spread over every master, each child in its parent’s partition', async () => {
    const url = (location as TestStoreLocation).url;
    const store = await open(url);
    const double = defineTask('double', async (n: number) => n * 2);
    const child = defineWorkflow(
      'child',
      class extends Workflow {
        async handle(n: number) {
          return this.execute(double, n);
        }
      },
    );
    const parent = defineWorkflow(
      'parent',
      class extends Workflow {
        async handle(n: number) {
          const [a, b] = await this.execute([child, n], [child, n + 1]);
          return a + b;
        }
      },
    );
    worker = new Worker({ store, idleMs: 200, workflows: [parent, child], tasks: [double] });
    await worker.start();
    const client = new Client(store);
    const jobs = await Promise.all(
      Array.from({ length: 24 }, (_, n) => client.start('parent', [n], { id: `order-${n}` })),
    );
    const results = await Promise.all(
      jobs.map((job) => client.result(job.id, { wait: true, timeoutMs: 60_000 })),
    );
    results.forEach((done, n) => {
      expect(done).toMatchObject({ state: 'SUCCESS', output: 4 * n + 2 });
    });

    // 24 parents and 48 children, every one on some master, every master holding some.
    const byNode = await jobKeysByNode();
    const all = [...byNode.values()].flat();
    expect(all).toHaveLength(72);
    expect(byNode.size).toBe(3);
    for (const keys of byNode.values()) expect(keys.length).toBeGreaterThan(0);

    // A child's keys carry its parent's partition tag.
    const partitionOf = new Map(
      all.map((key) => {
        const [, tag = '', id = ''] = /^weft:\{(p\d+)\}:job:(.*)$/.exec(key) ?? [];
        return [id, tag];
      }),
    );
    // Each job's history is in its job's partition too (a step writes one slot).
    const { nodes } = await cluster();
    for (const node of nodes) {
      for (const key of await withNode(node.port, (r) => r.keys('weft:{p*}:hist:*'))) {
        const [, tag, id = ''] = /^weft:\{(p\d+)\}:hist:(.*)$/.exec(key) ?? [];
        expect(tag).toBe(partitionOf.get(id));
      }
    }
    for (const job of jobs) {
      const children = await client.list({ parentId: job.id });
      expect(children).toHaveLength(2);
      for (const c of children) expect(partitionOf.get(c.id)).toBe(partitionOf.get(job.id));
    }
  });

  it('holds back the commits and claims of a partition while another commit’s fence is on it', async () => {
    const store = await open((location as TestStoreLocation).url);
    await store.createJob({ id: 'fenced', workflow: 'w', version: 1, model: 'graph', input: null });
    const [key] = [...(await jobKeysByNode()).values()].flat();
    const tag = /^weft:\{(p\d+)\}:job:fenced$/.exec(key as string)?.[1];
    expect(tag).toBeDefined();
    await store.append([{ stream: 's', job: 'fenced', payload: 1 }]);
    const { nodes } = await cluster();
    const raw = new Cluster(nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    raw.on('error', () => {});
    try {
      // What a split commit puts on a slot between its prepare and its write (a token no
      // sweep resolves: the test takes it away itself).
      await raw.set(`weft:{${tag}}:fence`, 'another-commit');
      expect(await store.claim('s', { consumer: 'c', leaseMs: 60_000 })).toEqual([]);
      const moving = store.updateJob('fenced', { output: 'moved' });
      expect((await store.getJob('fenced'))?.output).toBeNull();
      // The fence goes (its commit wrote, or was resolved): both go through.
      await raw.del(`weft:{${tag}}:fence`);
      await moving;
      expect((await store.getJob('fenced'))?.output).toBe('moved');
      expect(await store.claim('s', { consumer: 'c', leaseMs: 60_000 })).toHaveLength(1);
    } finally {
      raw.disconnect();
    }
  });

  it('warns at open, naming the master, when one master of the cluster would lose committed steps', async () => {
    const url = (location as TestStoreLocation).url;
    const warnings: string[] = [];
    const onWarning = (m: string) => warnings.push(m);
    stores.push(await openStore(url, { onWarning }));
    expect(warnings).toEqual([]);
    const { nodes } = await cluster();
    const last = nodes.at(-1)?.port as number;
    try {
      await withNode(last, (r) => r.config('SET', 'appendfsync', 'everysec'));
      stores.push(await openStore(url, { onWarning }));
    } finally {
      await withNode(last, (r) => r.config('SET', 'appendfsync', 'always'));
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('appendfsync everysec');
    expect(warnings[0]).toContain(`:${last})`);
  });

  it('fixes its partition count when it is first created, in weft:{g}:meta', async () => {
    const url = (location as TestStoreLocation).url;
    await open(`${url}?partitions=5`);
    // Opened again with another count, the store keeps its own.
    const again = await open(`${url}?partitions=9`);
    await again.createJob({ id: 'j', workflow: 'w', version: 1, model: 'graph', input: null });
    const { nodes } = await cluster();
    const raw = new Cluster(nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    raw.on('error', () => {});
    try {
      expect(await raw.hget('weft:{g}:meta', 'partitions')).toBe('5');
      const found = [...(await jobKeysByNode()).values()].flat();
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^weft:\{p[0-4]\}:job:j$/);
    } finally {
      raw.disconnect();
    }
  });
});
