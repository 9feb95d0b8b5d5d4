/**
 * The Redis test harness. Each test file (each vitest fork) that asks for a Redis store
 * lazily gets its own throwaway `redis-server`: on a free loopback port, in its own temp
 * directory, with `appendonly yes` and `appendfsync always` (the durability the Redis
 * store documents), stopped and deleted when the process goes away — by an exit hook, and
 * by a small shell watchdog when the process is killed without one. Each
 * {@link freshRedisLocation} call gets its own logical database on that server, emptied
 * afterwards.
 *
 * `WEFT_REDIS_SERVER` names the `redis-server` binary (default: the one on PATH).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { findRedisServer } from './redis-binary.js';
import type { TestStoreLocation } from './store-under-test.js';

/** A server this process started. */
export interface RedisServer {
  port: number;
  dir: string;
  child: ChildProcess;
  /** The extra command-line settings it was started with (a restart passes them again). */
  args: string[];
}

/** How many logical databases the server has: one per fresh location of a test file. */
const DATABASES = 4096;

let starting: Promise<RedisServer> | undefined;
let running: RedisServer | undefined;
let nextDb = 0;

/** `sh -c` script: $1 owner pid, $2 dir, then the server command line. */
const WATCHDOG = `
owner=$1; dir=$2; shift 2
"$@" & server=$!
echo $server > "$dir/redis-server.pid"
stop() { kill -TERM $server 2>/dev/null; wait $server; rm -rf "$dir"; exit 0; }
trap stop TERM INT HUP
while kill -0 $server 2>/dev/null && kill -0 $owner 2>/dev/null; do
  sleep 0.5 & wait $!
done
if kill -0 $server 2>/dev/null; then stop; fi
`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function binary(): string {
  const found = findRedisServer();
  if (found) return found;
  throw new Error(
    process.env.WEFT_REDIS_SERVER
      ? `WEFT_REDIS_SERVER=${process.env.WEFT_REDIS_SERVER} is not an executable redis-server`
      : 'redis-server not found: install it (apt-get install redis-server) or set WEFT_REDIS_SERVER',
  );
}

/**
 * True when a `redis-server` binary is there to start. With `WEFT_TEST_REDIS=required`
 * (CI) a missing one throws, naming why, so the run fails instead of skipping.
 */
export function redisServerInstalled(): boolean {
  try {
    binary();
    return true;
  } catch (error) {
    if (process.env.WEFT_TEST_REDIS === 'required') throw error;
    return false;
  }
}

/**
 * Starts a `redis-server` on `port` (a free one when absent) in `dir` (a new temp
 * directory when absent), durable (`appendfsync always`), and waits until it answers;
 * `args` are more command-line settings (a cluster node's, redis-cluster.ts).
 * The caller stops it ({@link stopRedisServer}); the watchdog does when this process dies.
 */
export async function startRedisServer(
  options: { port?: number; dir?: string; args?: string[] } = {},
): Promise<RedisServer> {
  const bin = binary();
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = options.port ?? (await freePort());
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'weft-redis-'));
    const args = [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      ...['--databases', String(DATABASES), '--logfile', join(dir, 'server.log')],
      ...['--protected-mode', 'no'],
      ...(options.args ?? []),
    ];
    const child = spawn(
      'sh',
      ['-c', WATCHDOG, 'weft-redis', String(process.pid), dir, bin, ...args],
      {
        cwd: tmpdir(),
        stdio: 'ignore',
      },
    );
    child.unref();
    let exited = false;
    child.on('exit', () => {
      exited = true;
    });
    for (let waited = 0; waited < 20_000 && !exited; waited += 50) {
      const probe = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        retryStrategy: () => null,
      });
      probe.on('error', () => {});
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return { port, dir, child, args: options.args ?? [] };
      } catch {
        probe.disconnect();
        await sleep(50);
      }
    }
    try {
      lastError = readFileSync(join(dir, 'server.log'), 'utf8')
        .trim()
        .split('\n')
        .slice(-10)
        .join('\n');
    } catch {
      lastError = '';
    }
    child.kill('SIGTERM');
    if (options.port !== undefined || !/Address already in use/i.test(lastError)) break;
  }
  throw new Error(`redis-server did not start: ${lastError || 'no log output'}`);
}

/** Stops a server (its watchdog stops redis-server and deletes its directory). */
export function stopRedisServer(server: RedisServer): void {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
}

/** SIGKILLs the redis-server itself (by the pid its watchdog wrote), for crash tests. */
export function killRedisServer(server: RedisServer): void {
  const pid = Number(readFileSync(join(server.dir, 'redis-server.pid'), 'utf8').trim());
  if (pid > 0) process.kill(pid, 'SIGKILL');
}

function stopSync(): void {
  if (running) stopRedisServer(running);
  running = undefined;
}

/** This test file's server, started on first use. */
function server(): Promise<RedisServer> {
  if (!starting) {
    starting = startRedisServer().then((s) => {
      running = s;
      return s;
    });
    process.once('exit', stopSync);
  }
  return starting;
}

/** A fresh, empty Redis store location: a logical database of this file's server. */
export async function freshRedisLocation(): Promise<TestStoreLocation> {
  const { port } = await server();
  const db = nextDb++;
  if (db >= DATABASES) throw new Error(`more than ${DATABASES} Redis stores in one test file`);
  const url = `redis://127.0.0.1:${port}/${db}`;
  return {
    url,
    cleanup: async () => {
      const admin = new Redis({ port, host: '127.0.0.1', db, lazyConnect: true });
      admin.on('error', () => {});
      try {
        await admin.connect();
        await admin.flushdb();
      } catch {
        // The server is gone already (a crash test): nothing to empty.
      } finally {
        admin.disconnect();
      }
    },
  };
}
