/**
 * The Redis connection (ioredis): opened from a parsed `redis://` URL, with the commit
 * script registered (`EVALSHA`, loaded again by ioredis after a server restart), and
 * errors turned into typed `StoreError`s naming where the server is (never its password).
 */
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';
import { StoreError, WeftError } from '../../core/errors.js';
import type { StoreUrl } from '../url.js';
import { CLAIM_SCRIPT, UNCLAIM_SCRIPT } from './claim-script.js';
import { COMMIT_SCRIPT, DECIDE_SCRIPT } from './commit-script.js';

/**
 * ioredis, loaded with `require`: it is CommonJS, and an `import` of it from an ES module
 * costs about 40 ms more (Node scans its files for their named exports), on every `weft`
 * command that opens a Redis store.
 */
const { Cluster, Redis } = createRequire(import.meta.url)('ioredis') as typeof IORedis;

/** A parsed Redis URL. */
export type RedisUrl = Extract<StoreUrl, { dialect: 'redis' }>;

/** A connection with the commit script as a command. */
export interface RedisConnection extends IORedis.Redis {
  /** Keys then arguments in one array (ioredis flattens it: no spread of a big unit). */
  weftCommit(numberOfKeys: number, keysThenArgs: string[]): Promise<string[]>;
  weftClaim(numberOfKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
  weftUnclaim(numberOfKeys: number, ...keysThenArgs: string[]): Promise<number>;
  weftDecide(numberOfKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
}

/**
 * Opens a connection; `StoreError` `STORE_UNREACHABLE` when the server does not answer.
 * A `redis+cluster://` URL opens an ioredis `Cluster` ({@link clusterClient}), which has
 * the same commands, each sent to the node serving its key's slot.
 */
export async function connect(url: RedisUrl): Promise<RedisConnection> {
  const redis = url.cluster ? clusterClient(url) : serverClient(url);
  redis.defineCommand('weftCommit', { lua: COMMIT_SCRIPT });
  redis.defineCommand('weftClaim', { lua: CLAIM_SCRIPT });
  redis.defineCommand('weftUnclaim', { lua: UNCLAIM_SCRIPT });
  redis.defineCommand('weftDecide', { lua: DECIDE_SCRIPT });
  // Errors reach the commands that fail; the event must not go unhandled meanwhile.
  redis.on('error', () => {});
  try {
    // Resolves once the server answered the ready check (INFO, which also waits out a
    // server still loading its append-only file): no PING of our own is needed.
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new StoreError(`cannot reach Redis at ${url.redacted}: ${messageOf(error)}`, {
      code: 'STORE_UNREACHABLE',
      cause: error,
    });
  }
  return redis;
}

/** A client of one server. */
function serverClient(url: RedisUrl): RedisConnection {
  return new Redis({
    host: url.host,
    port: url.port,
    db: url.db,
    ...(url.username !== undefined && { username: url.username }),
    ...(url.password !== undefined && { password: url.password }),
    lazyConnect: true,
    enableAutoPipelining: true,
    // A lost connection is retried for a while; a command waits for it, then fails.
    maxRetriesPerRequest: 20,
    // No CLIENT SETINFO at connect: two commands fewer for every `weft` command, which
    // opens a connection, runs a few reads and exits.
    disableClientInfo: true,
  }) as RedisConnection;
}

/**
 * A client of a Redis Cluster, from its seed nodes. Its commands are those of a one-server
 * client (ioredis routes each by its key's slot; a script by its first key's), so the
 * store uses it through the same type; sharded pub/sub (`SSUBSCRIBE`) gets one subscriber
 * connection per master.
 */
function clusterClient(url: RedisUrl): RedisConnection {
  const cluster = new Cluster(url.cluster ?? [], {
    lazyConnect: true,
    enableAutoPipelining: true,
    // ioredis groups auto-pipelined commands by the slot of their first argument, which
    // for the scripts (`weftCommit(n, [keys…, args…])`) is not a key: they go alone.
    autoPipeliningIgnoredCommands: [
      'weftCommit',
      'weftClaim',
      'weftUnclaim',
      'weftDecide',
      'evalsha',
      'eval',
    ],
    shardedSubscribers: true,
    redisOptions: {
      ...(url.username !== undefined && { username: url.username }),
      ...(url.password !== undefined && { password: url.password }),
      maxRetriesPerRequest: 20,
    },
  });
  return cluster as unknown as RedisConnection;
}

/** Whether a connection is a Redis Cluster client. */
export function isCluster(redis: RedisConnection): boolean {
  return (redis as unknown) instanceof Cluster;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A weft error as it is; anything else a command threw as `StoreError` `STORE_REDIS`. */
export function asStoreError(error: unknown, url: RedisUrl): unknown {
  if (error instanceof WeftError) return error;
  if (error instanceof Error) {
    return new StoreError(`Redis at ${url.redacted}: ${error.message}`, {
      code: 'STORE_REDIS',
      cause: error,
    });
  }
  return error;
}
