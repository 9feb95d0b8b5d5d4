/**
 * The Redis Cluster test harness (issue 23): a three-master Redis Cluster from Debian's
 * `redis-server` 7.0, started lazily once per test file (each vitest fork). Each node is a
 * `redis-server` of redis-server.ts — a free loopback port, its own temp directory,
 * `appendonly yes`, `appendfsync always`, and the watchdog that stops it when this process
 * dies — started with `cluster-enabled yes` and its cluster bus on a second free port; the
 * slots are then assigned by Redis's own tool (`redis-cli --cluster create … --cluster-yes`,
 * no replicas; `startRedisCluster(3, { replicas: 1 })` starts six servers, a replica per
 * master, for the failover test). The nodes are stopped when the process exits ({@link stopRedisCluster} does
 * it earlier).
 *
 * A cluster has only database 0, so every {@link freshRedisClusterLocation} of a file
 * shares the one keyspace: its cleanup empties every master (`FLUSHALL`), and a test file
 * uses one location at a time.
 */
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { type RedisServer, startRedisServer, stopRedisServer } from './redis-server.js';
import type { TestStoreLocation } from './store-under-test.js';

/** A cluster this process started: its masters, in port order. */
export interface RedisCluster {
  nodes: RedisServer[];
  /** The `redis+cluster://` URL naming every master. */
  url: string;
}

let starting: Promise<RedisCluster> | undefined;
let running: RedisCluster | undefined;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `redis-cli` next to the server (Debian's redis-tools), or the one on PATH. */
function cli(): string {
  const named = process.env.WEFT_REDIS_CLI;
  if (named) return named;
  return 'redis-cli';
}

/** How a cluster is started beyond its master count. */
export interface RedisClusterOptions {
  /**
   * Replicas per master (`redis-cli --cluster create --cluster-replicas N`): a cluster of
   * `masters × (1 + replicas)` servers. Default 0.
   */
  replicas?: number;
  /**
   * `cluster-node-timeout` (ms): how long a master may be unreachable before the others
   * mark it failed and its replica is promoted. Default 5000.
   */
  nodeTimeoutMs?: number;
}

/** The command line of a cluster node (its `nodes.conf` in its own directory). */
export function clusterNodeArgs(bus: number, nodeTimeoutMs: number): string[] {
  return [
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
    ...['--cluster-port', String(bus), '--cluster-node-timeout', String(nodeTimeoutMs)],
    // A replica's first sync starts at once (by default its master waits 5 s for more).
    ...['--repl-diskless-sync-delay', '0'],
  ];
}

/**
 * Starts `masters` cluster nodes (and `options.replicas` replicas of each) and joins them
 * into one cluster with every slot assigned; resolves once every node says
 * `cluster_state:ok` and, with replicas, every replica's link to its master is up.
 */
export async function startRedisCluster(
  masters = 3,
  options: RedisClusterOptions = {},
): Promise<RedisCluster> {
  const replicas = options.replicas ?? 0;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 5000;
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      nodes.push(
        await startRedisServer({ args: clusterNodeArgs(await freePort(), nodeTimeoutMs) }),
      );
    }
    // redis-cli makes the first `masters` nodes masters and the rest their replicas.
    const create = spawnSync(
      cli(),
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0) {
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}\n${create.stderr}`);
    }
    await untilClusterOk(nodes);
    if (replicas > 0) await untilReplicasLinked(nodes, masters * replicas);
  } catch (error) {
    for (const node of nodes) stopRedisServer(node);
    throw error;
  }
  return {
    nodes,
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
  };
}

/** Waits until every node sees the whole cluster (all slots served, state ok). */
async function untilClusterOk(nodes: RedisServer[]): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const states = await Promise.all(
      nodes.map((n) => withNode(n.port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>)),
    );
    if (states.every((s) => /cluster_state:ok/.test(s) && /cluster_known_nodes:(\d+)/.test(s))) {
      const known = states.map((s) => Number(/cluster_known_nodes:(\d+)/.exec(s)?.[1]));
      if (known.every((k) => k === nodes.length)) return;
    }
    await sleep(100);
  }
  throw new Error('the Redis Cluster did not reach cluster_state:ok in 30 s');
}

/** Waits until `count` of the nodes are replicas whose link to their master is up. */
export async function untilReplicasLinked(nodes: RedisServer[], count: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const infos = await Promise.all(
      nodes.map((n) => withNode(n.port, (r) => r.info('replication')).catch(() => '')),
    );
    const linked = infos.filter(
      (i) => /^role:slave/m.test(i) && /^master_link_status:up/m.test(i),
    ).length;
    if (linked >= count) return;
    await sleep(100);
  }
  throw new Error(`fewer than ${count} replicas of the Redis Cluster were linked after 30 s`);
}

/** Runs `fn` on a plain connection to one node. */
export async function withNode<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Stops every node of a cluster (their watchdogs delete their directories). */
export function stopRedisCluster(cluster: RedisCluster): void {
  for (const node of cluster.nodes) stopRedisServer(node);
}

function stopSync(): void {
  if (running) stopRedisCluster(running);
  running = undefined;
}

/** This test file's cluster, started on first use. */
export function redisCluster(): Promise<RedisCluster> {
  if (!starting) {
    starting = startRedisCluster().then((c) => {
      running = c;
      return c;
    });
    process.once('exit', stopSync);
  }
  return starting;
}

/** Empties every master of the cluster. */
async function flushAll(cluster: RedisCluster): Promise<void> {
  await Promise.all(
    cluster.nodes.map((n) =>
      withNode(n.port, (r) => r.flushall()).catch(() => {
        // A node that is gone (a crash test): nothing to empty there.
      }),
    ),
  );
}

/** A fresh, empty store location on this file's cluster (the cluster's one keyspace). */
export async function freshRedisClusterLocation(): Promise<TestStoreLocation> {
  const cluster = await redisCluster();
  await flushAll(cluster);
  return { url: cluster.url, cleanup: () => flushAll(cluster) };
}
