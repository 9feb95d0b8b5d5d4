/**
 * Where a scenario runs: the worker in the driver's own process (how an embedded user
 * runs weft; on SQLite and on PostgreSQL), or PostgreSQL with 1 or 4 worker processes
 * (`bench/worker-process.ts`) while the driver only starts jobs and measures. Every
 * scenario run gets a fresh database, so no run sees another's backlog. In-process
 * targets count every store call (`profile/counting-store.ts`) for the profile rows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Client } from '../src/client/client.js';
import { openStore } from '../src/store/open-store.js';
import { DEFAULT_POOL_SIZE } from '../src/store/postgres/postgres-store.js';
import type { Store } from '../src/store/store.js';
import { Worker } from '../src/worker/worker.js';
import { BenchError } from './bench-error.js';
import { benchWork } from './bench-handlers.js';
import type { BenchPostgres } from './postgres-server.js';
import { countingStore, StoreCounts } from './profile/counting-store.js';
import { redisNodes } from './redis-cluster.js';
import type { BenchRedis } from './redis-server.js';
import type { FromWorker, ToWorker } from './worker-process.js';

/**
 * The stores and process layouts a run can measure. `dbos` is not weft: DBOS Transact on
 * the same PostgreSQL server, run from a scratch folder (`dbos.ts`), for scenario 1 only;
 * nor is `bullmq`: BullMQ on the same Redis server (`bullmq.ts`), scenario 1's shape as
 * ten jobs in a row.
 */
export const TARGET_NAMES = [
  'sqlite',
  'pg',
  'sqlite-tuned',
  'pg-tuned',
  'sqlite-1',
  'pg-1',
  'pg-4',
  'dbos',
  'redis',
  'redis-cluster',
  'bullmq',
] as const;
/** One of {@link TARGET_NAMES}. */
export type TargetName = (typeof TARGET_NAMES)[number];
/** What `npm run bench` measures unless told otherwise: defaults first, tuned second. */
export const DEFAULT_TARGETS: readonly TargetName[] = [
  'sqlite',
  'pg',
  'sqlite-tuned',
  'pg-tuned',
  'pg-4',
];

/** A store and how many worker processes run against it (0: one worker inside the driver). */
export interface TargetSpec {
  name: TargetName;
  dialect: 'sqlite' | 'postgres' | 'redis';
  processes: number;
  /**
   * `defaults`: the Worker and the store as a user's first program opens them, with no
   * option given; `tuned`: {@link TUNED_SETTINGS} passed explicitly.
   */
  settings: 'defaults' | 'tuned';
  /** Column title in the table. */
  title: string;
  /** Not weft: runs its own workload (DBOS), only where a scenario knows how. */
  external?: boolean;
  /** Redis only: on the run's three-master Redis Cluster (`redis-cluster.ts`), not one server. */
  cluster?: boolean;
}

/** Every target by name. */
export const TARGETS: Record<TargetName, TargetSpec> = {
  sqlite: {
    name: 'sqlite',
    dialect: 'sqlite',
    processes: 0,
    settings: 'defaults',
    title: 'SQLite (in-process, defaults)',
  },
  pg: {
    name: 'pg',
    dialect: 'postgres',
    processes: 0,
    settings: 'defaults',
    title: 'PG (in-process, defaults)',
  },
  'sqlite-tuned': {
    name: 'sqlite-tuned',
    dialect: 'sqlite',
    processes: 0,
    settings: 'tuned',
    title: 'SQLite (in-process, tuned)',
  },
  'pg-tuned': {
    name: 'pg-tuned',
    dialect: 'postgres',
    processes: 0,
    settings: 'tuned',
    title: 'PG (in-process, tuned)',
  },
  'sqlite-1': {
    name: 'sqlite-1',
    dialect: 'sqlite',
    processes: 1,
    settings: 'defaults',
    title: 'SQLite, 1 proc',
  },
  'pg-1': {
    name: 'pg-1',
    dialect: 'postgres',
    processes: 1,
    settings: 'defaults',
    title: 'PG, 1 proc',
  },
  'pg-4': {
    name: 'pg-4',
    dialect: 'postgres',
    processes: 4,
    settings: 'defaults',
    title: 'PG, 4 procs',
  },
  dbos: {
    name: 'dbos',
    dialect: 'postgres',
    processes: 0,
    settings: 'defaults',
    title: 'DBOS Transact (PG, defaults)',
    external: true,
  },
  redis: {
    name: 'redis',
    dialect: 'redis',
    processes: 0,
    settings: 'defaults',
    title: 'Redis (in-process, defaults)',
  },
  'redis-cluster': {
    name: 'redis-cluster',
    dialect: 'redis',
    processes: 0,
    settings: 'defaults',
    title: 'Redis Cluster, 3 masters (in-process, defaults)',
    cluster: true,
  },
  bullmq: {
    name: 'bullmq',
    dialect: 'redis',
    processes: 0,
    settings: 'defaults',
    title: 'BullMQ (Redis)',
    external: true,
  },
};

/** Worker and pool settings of the tuned targets (reported in BENCHMARKS.md). */
export interface WorkerSettings {
  /** Task handlers running at once per worker. */
  concurrency: number;
  /** Engine messages per transaction. */
  batchSize: number;
  /** PostgreSQL pool per worker process. */
  workerPool: number;
  /** PostgreSQL pool of the driver (its Client) when workers run in other processes. */
  driverPool: number;
}

/**
 * The settings the `-tuned` targets pass explicitly: the figures the project measured by
 * hand before the defaults were raised to match them (issue 21).
 */
export const TUNED_SETTINGS: WorkerSettings = {
  concurrency: 64,
  batchSize: 64,
  workerPool: 10,
  driverPool: 16,
};

/** The pool a store opens with no `?pool=N` (what the `defaults` targets' workers hold). */
export const DEFAULT_WORKER_POOL = DEFAULT_POOL_SIZE;

/**
 * The connections each worker process of `spec` holds (PostgreSQL), or is measured against:
 * a Redis store multiplexes one connection, and its parallel baseline runs on as many
 * connections as PostgreSQL's default pool, so the two columns' ratios compare.
 */
export function workerPoolOf(spec: TargetSpec, settings: WorkerSettings): number {
  return spec.settings === 'tuned' ? settings.workerPool : DEFAULT_WORKER_POOL;
}

/** What targets need from the run. */
export interface BenchEnv {
  /** A temporary directory for SQLite files. */
  dir: string;
  postgres: BenchPostgres | undefined;
  redis?: BenchRedis | undefined;
  /** The three-master cluster the `redis-cluster` target runs on. */
  redisCluster?: BenchRedis | undefined;
  settings: WorkerSettings;
  /** Extra `node` flags for worker processes (e.g. `--cpu-prof`). */
  workerExecArgv?: string[];
}

/** A target, started for one scenario run. */
export interface RunningTarget {
  spec: TargetSpec;
  url: string;
  /** The driver's store (in-process targets: also the worker's, counted). */
  store: Store;
  /** Every store call of the process, on in-process targets. */
  counts?: StoreCounts;
  client: Client;
  /** Resident memory of each process that runs a worker, in bytes. */
  workerRss(): Promise<number[]>;
  /** Bytes the store takes on disk (SQLite: file + WAL; PostgreSQL: pg_database_size). */
  storeBytes(): Promise<number>;
  /** Connections the workers hold open (what the parallel baseline uses). */
  workerConnections: number;
  stop(): Promise<void>;
}

const WORKER_SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'worker-process.ts');

function withPool(url: string, pool: number): string {
  const parsed = new URL(url);
  parsed.searchParams.set('pool', String(pool));
  return parsed.toString();
}

/** Starts `spec` (a weft target) on a fresh database named after `label`. */
export async function startTarget(
  spec: TargetSpec,
  env: BenchEnv,
  label: string,
): Promise<RunningTarget> {
  const { settings } = env;
  let url: string;
  let driverUrl: string;
  let workerUrl: string;
  if (spec.dialect === 'sqlite') {
    url = `sqlite:${join(env.dir, `${label}.db`)}`;
    driverUrl = url;
    workerUrl = url;
  } else if (spec.dialect === 'redis') {
    const server = redisOf(spec, env);
    url = await server.createDatabase(label);
    driverUrl = url;
    workerUrl = url;
  } else {
    if (!env.postgres) throw new BenchError('BENCH_PG', 'no PostgreSQL server for this run');
    url = await env.postgres.createDatabase(label.replace(/[^a-z0-9_]/g, '_'));
    const tuned = spec.settings === 'tuned';
    // In one process the Client and the Worker share the worker's pool; on defaults, the
    // URL names no pool, as a user's first program's does.
    driverUrl =
      spec.processes === 0
        ? tuned
          ? withPool(url, settings.workerPool)
          : url
        : withPool(url, settings.driverPool);
    workerUrl = tuned ? withPool(url, settings.workerPool) : url;
  }
  // The driver opens first, so migrations run once before any worker starts.
  const opened = await openStore(driverUrl);
  const counts = spec.processes === 0 ? new StoreCounts() : undefined;
  const store = counts ? countingStore(opened, counts) : opened;
  const client = new Client(store);
  const children: ChildProcess[] = [];
  let inProcess: Worker | undefined;
  try {
    if (spec.processes === 0) {
      inProcess = new Worker({
        store,
        ...benchWork,
        ...(spec.settings === 'tuned' && {
          concurrency: settings.concurrency,
          batchSize: settings.batchSize,
        }),
      });
      await inProcess.start();
    } else {
      const started = Array.from({ length: spec.processes }, () =>
        spawnWorker(
          workerUrl,
          spec.settings === 'tuned' ? settings : undefined,
          env.workerExecArgv ?? [],
        ),
      );
      children.push(...started.map((s) => s.child));
      await Promise.all(started.map((s) => s.ready));
    }
  } catch (error) {
    await Promise.all(children.map(stopChild));
    await inProcess?.stop();
    await store.close();
    throw error;
  }
  return {
    spec,
    url,
    store,
    ...(counts && { counts }),
    client,
    workerConnections:
      spec.dialect === 'sqlite' ? 1 : Math.max(1, spec.processes) * workerPoolOf(spec, settings),
    async workerRss() {
      if (spec.processes === 0) return [process.memoryUsage().rss];
      return Promise.all(children.map(askRss));
    },
    async storeBytes() {
      if (spec.dialect === 'sqlite') {
        const file = url.slice('sqlite:'.length);
        return [file, `${file}-wal`, `${file}-shm`].reduce((sum, f) => sum + sizeOf(f), 0);
      }
      if (spec.dialect === 'redis') return redisMemory(url);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const { rows } = await db.query<{ size: string }>(
          'SELECT pg_database_size(current_database())::text AS size',
        );
        return Number(rows[0]?.size ?? Number.NaN);
      } finally {
        await db.end();
      }
    },
    async stop() {
      await inProcess?.stop();
      await Promise.all(children.map(stopChild));
      await store.close();
    },
  };
}

/** The Redis server (or cluster) a Redis target runs on. */
export function redisOf(spec: TargetSpec, env: BenchEnv): BenchRedis {
  const server = spec.cluster ? env.redisCluster : env.redis;
  if (!server) {
    throw new BenchError(
      'BENCH_REDIS',
      `no Redis ${spec.cluster ? 'cluster' : 'server'} for this run`,
    );
  }
  return server;
}

/**
 * The Redis server's `used_memory` (the server holds only this run's database); on a
 * cluster, every master's summed.
 */
async function redisMemory(url: string): Promise<number> {
  const nodes = redisNodes(url);
  if (nodes.length > 0) {
    const each = await Promise.all(nodes.map((n) => redisMemory(`redis://${n.host}:${n.port}`)));
    return each.reduce((a, b) => a + b, 0);
  }
  const redis = new Redis(url);
  try {
    const info = await redis.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  } finally {
    redis.disconnect();
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** A worker process; `settings` undefined: the Worker's defaults. */
function spawnWorker(
  url: string,
  settings: WorkerSettings | undefined,
  execArgv: string[],
): { child: ChildProcess; ready: Promise<void> } {
  const tuning = settings
    ? ['--concurrency', String(settings.concurrency), '--batch', String(settings.batchSize)]
    : [];
  const child = spawn(
    process.execPath,
    [...execArgv, '--import', 'tsx', WORKER_SCRIPT, url, ...tuning],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new BenchError('BENCH_WORKER', 'a worker process did not start within 60 s'));
    }, 60_000);
    child.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve();
      } else if (message.type === 'error') {
        clearTimeout(timer);
        reject(new BenchError('BENCH_WORKER', `a worker process failed: ${message.message}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new BenchError(
          'BENCH_WORKER',
          `a worker process exited (${code ?? signal}) before it was ready`,
        ),
      );
    });
  });
  return { child, ready };
}

function askRss(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new BenchError('BENCH_WORKER', 'a worker process did not report its memory')),
      10_000,
    );
    const onMessage = (message: FromWorker) => {
      if (message.type !== 'rss') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message.rss);
    };
    child.on('message', onMessage);
    child.send({ type: 'rss' } satisfies ToWorker);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.send({ type: 'stop' } satisfies ToWorker);
    else child.kill('SIGTERM');
  });
}
