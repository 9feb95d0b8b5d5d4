/**
 * A Redis server for benchmarks, configured as the Redis store's docs ask for a durable
 * store: `appendonly yes` and `appendfsync always` (every write is in the AOF and synced
 * before Redis answers), no RDB snapshots. It runs Debian's `redis-server` (or
 * `WEFT_BENCH_REDIS_SERVER`) in a temporary directory on a free port on 127.0.0.1, and is
 * stopped and removed when the run ends. Each scenario run gets a logical database of its
 * own on an emptied server (`FLUSHALL`: one run at a time, so the server's memory is that
 * run's); `--redis-url` names a server to use instead, WHOSE DATA IS DELETED.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { BenchError } from './bench-error.js';
import { freePort } from './free-port.js';

/** A running server (ours or one the user named). */
export interface BenchRedis {
  /** The server's URL (database 0). */
  url: string;
  /** Empties the server and returns the URL of the database a run takes. */
  createDatabase(label: string): Promise<string>;
  /** The settings that decide durability, as the server reports them. */
  settings(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/** The logical database each run takes (not 0, so a run never shares the admin's). */
const RUN_DB = 1;

/** Debian's `redis-server`, or the one `WEFT_BENCH_REDIS_SERVER` names. */
export function redisServerBinary(): string {
  const named = process.env.WEFT_BENCH_REDIS_SERVER;
  if (named) return named;
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status === 0 && path) return path;
  throw new BenchError(
    'BENCH_REDIS',
    'redis-server not found: install it (apt-get install redis-server) or set WEFT_BENCH_REDIS_SERVER',
  );
}

/** Resolves once the server at `url` answers PING (fails when `child` exits first). */
export async function waitForPing(url: string, child: ChildProcess | undefined): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) break;
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    try {
      await redis.connect();
      await redis.ping();
      return;
    } catch (error) {
      last = error;
    } finally {
      redis.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new BenchError('BENCH_REDIS', `Redis at ${url} did not answer: ${String(last)}`);
}

/** Starts a durable Redis server, or uses the one at `url`. */
export async function startBenchRedis(url?: string): Promise<BenchRedis> {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  let base = url;
  if (!base) {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'weft-bench-redis-'));
    child = spawn(
      redisServerBinary(),
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    base = `redis://127.0.0.1:${port}`;
  }
  const serverUrl = base;
  try {
    await waitForPing(serverUrl, child);
  } catch (error) {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const admin = new Redis(serverUrl);
  admin.on('error', () => {});
  return {
    url: serverUrl,
    async createDatabase() {
      await admin.flushall();
      return `${serverUrl.replace(/\/\d*$/, '')}/${RUN_DB}`;
    },
    async settings() {
      const info = await admin.info('server');
      const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
      const get = async (name: string) => ((await admin.config('GET', name)) as string[])[1] ?? '?';
      return {
        redis_version: version,
        appendonly: await get('appendonly'),
        appendfsync: await get('appendfsync'),
        save: (await get('save')) || '""',
      };
    },
    async stop() {
      admin.disconnect();
      if (!child) return;
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      child.kill('SIGTERM');
      await exited;
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
