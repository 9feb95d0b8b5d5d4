/**
 * A Redis Cluster for the `redis-cluster` target: three masters (no replicas) of Debian's
 * `redis-server`, each on a free port on 127.0.0.1 with its cluster bus on another, in a
 * temporary directory of its own, durable as the Redis store's docs ask (`appendonly yes`,
 * `appendfsync always`, no RDB snapshots), joined by Redis's own tool
 * (`redis-cli --cluster create`). Every scenario run empties every master (`FLUSHALL`; a
 * cluster has database 0 only) and gets the `redis+cluster://` URL naming all three. The
 * servers share the machine's cores with the driver, as the single server does.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { BenchError } from './bench-error.js';
import { freePort } from './free-port.js';
import { type BenchRedis, redisServerBinary, waitForPing } from './redis-server.js';

/** The masters a `redis://` or `redis+cluster://` URL names, as ioredis options. */
export function redisNodes(url: string): { host: string; port: number }[] {
  if (!url.startsWith('redis+cluster://')) return [];
  const [nodes = ''] = url.slice('redis+cluster://'.length).split('?');
  return nodes.split(',').map((node) => {
    const [host = '127.0.0.1', port = '6379'] = node.split(':');
    return { host, port: Number(port) };
  });
}

interface Node {
  port: number;
  dir: string;
  child: ChildProcess;
}

function redisCli(): string {
  return process.env.WEFT_BENCH_REDIS_CLI ?? 'redis-cli';
}

async function startNode(): Promise<Node> {
  const port = await freePort();
  const bus = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-cluster-'));
  const child = spawn(
    redisServerBinary(),
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no'],
      ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
      ...['--cluster-port', String(bus), '--cluster-node-timeout', '5000'],
    ],
    { stdio: 'ignore' },
  );
  const node = { port, dir, child };
  try {
    await waitForPing(`redis://127.0.0.1:${port}`, child);
  } catch (error) {
    stopNode(node);
    throw error;
  }
  return node;
}

function stopNode(node: Node): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (node.child.exitCode !== null) resolve();
    else node.child.once('exit', () => resolve());
  });
  node.child.kill('SIGTERM');
  return exited.then(() => rmSync(node.dir, { recursive: true, force: true }));
}

async function onEach<T>(nodes: Node[], fn: (redis: Redis) => Promise<T>): Promise<T[]> {
  return Promise.all(
    nodes.map(async (node) => {
      const redis = new Redis({ port: node.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      redis.on('error', () => {});
      try {
        return await fn(redis);
      } finally {
        redis.disconnect();
      }
    }),
  );
}

async function untilClusterOk(nodes: Node[]): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const states = await onEach(nodes, (r) => r.call('CLUSTER', 'INFO') as Promise<string>);
    const ok = states.every(
      (s) =>
        /cluster_state:ok/.test(s) &&
        Number(/cluster_known_nodes:(\d+)/.exec(s)?.[1]) === nodes.length,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new BenchError('BENCH_REDIS', 'the Redis Cluster did not reach cluster_state:ok in 30 s');
}

/** Starts a `masters`-master Redis Cluster on loopback ports. */
export async function startBenchRedisCluster(masters = 3): Promise<BenchRedis> {
  const nodes: Node[] = [];
  try {
    for (let i = 0; i < masters; i++) nodes.push(await startNode());
    const create = spawnSync(
      redisCli(),
      [
        ...['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`)],
        ...['--cluster-replicas', '0', '--cluster-yes'],
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0) {
      throw new BenchError(
        'BENCH_REDIS',
        `redis-cli --cluster create failed: ${create.error?.message ?? ''}${create.stdout}${create.stderr}`,
      );
    }
    await untilClusterOk(nodes);
  } catch (error) {
    await Promise.all(nodes.map(stopNode));
    throw error;
  }
  const url = `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  return {
    url,
    async createDatabase() {
      await onEach(nodes, (r) => r.flushall());
      return url;
    },
    async settings() {
      const [first] = await onEach(nodes.slice(0, 1), async (r) => {
        const info = await r.info('server');
        const get = async (name: string) => ((await r.config('GET', name)) as string[])[1] ?? '?';
        return {
          redis_version: /redis_version:(\S+)/.exec(info)?.[1] ?? '?',
          appendonly: await get('appendonly'),
          appendfsync: await get('appendfsync'),
          save: (await get('save')) || '""',
        };
      });
      return { masters: String(nodes.length), replicas: '0', ...first };
    },
    async stop() {
      await Promise.all(nodes.map(stopNode));
    },
  };
}
