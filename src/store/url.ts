/**
 * Store URLs, parsed in one place. `sqlite:<path>` (or `sqlite::memory:`) opens the
 * embedded store (its directory must exist, except for the default `./.weft/weft.db`); `postgres://` or `postgresql://` opens PostgreSQL; `redis://[user:pass@]host:port[/db]`
 * opens the Redis store on one server, and `redis+cluster://[user:pass@]host:port,host:port,…`
 * on a Redis Cluster (docs/store-redis.md). Anything else is a {@link ValidationError} that says what is accepted.
 */
import { normalize } from 'node:path';
import { ValidationError } from '../core/errors.js';

/** The embedded store used when no URL is given. */
export const DEFAULT_STORE_URL = 'sqlite:./.weft/weft.db';

/** The default database's path: the only SQLite path whose directory weft creates. */
const DEFAULT_SQLITE_PATH = './.weft/weft.db';

/** A parsed store URL. */
export type StoreUrl =
  | {
      dialect: 'sqlite';
      path: string;
      memory: boolean;
      /**
       * True for the default database (`./.weft/weft.db`): its directory is created on
       * first use. Any other path's directory must exist.
       */
      createDirectory: boolean;
    }
  | {
      dialect: 'postgres';
      connectionString: string;
      host: string;
      port: number;
      database: string;
      /** `?pool=N` sets the connection-pool size. */
      poolSize: number | undefined;
      /** The URL without its password or credential parameters, for messages ({@link redactUrl}). */
      redacted: string;
    }
  | {
      dialect: 'redis';
      host: string;
      port: number;
      /** The logical database (`/N`, default 0). */
      db: number;
      username: string | undefined;
      password: string | undefined;
      /** The URL without its password, for messages. */
      redacted: string;
      /**
       * `redis+cluster://`: the cluster's seed nodes (`host`/`port` are the first); absent
       * for one server.
       */
      cluster?: { host: string; port: number }[];
      /** `?partitions=N` (cluster only): the partition count a new store is created with. */
      partitions?: number;
      /**
       * `?wait=N[&waitTimeout=ms]`: after every commit, `WAIT N ms` on the master that ran
       * it; a commit fewer than N replicas acknowledged in time fails with `StoreError`
       * `STORE_NOT_REPLICATED` (docs/store-redis.md, section 5). Absent: no waiting.
       */
      wait?: RedisWait;
    };

/** `?wait=N&waitTimeout=ms` of a Redis URL. */
export interface RedisWait {
  /** Replicas that must have a commit before it is acknowledged. */
  replicas: number;
  /** How long a commit waits for them (ms). */
  timeoutMs: number;
}

/** The most replicas `?wait=` may ask for. */
export const MAX_REDIS_WAIT = 64;
/** `waitTimeout` when `wait` is given without it (ms). */
export const DEFAULT_REDIS_WAIT_TIMEOUT_MS = 1_000;
/** The longest `waitTimeout` (ms). */
const MAX_REDIS_WAIT_TIMEOUT_MS = 600_000;

/**
 * Reads `wait` and `waitTimeout` from a Redis URL's parameters (deleting them), or throws
 * through `bad` naming the parameter and the value it got.
 */
function redisWait(params: URLSearchParams, bad: (what: string) => never): RedisWait | undefined {
  const integer = (name: string, min: number, max: number): number | undefined => {
    const all = params.getAll(name);
    params.delete(name);
    if (all.length === 0) return undefined;
    if (all.length > 1) bad(`${name} is given ${all.length} times`);
    const value = all[0] as string;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      bad(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return n;
  };
  const replicas = integer('wait', 1, MAX_REDIS_WAIT);
  const timeoutMs = integer('waitTimeout', 1, MAX_REDIS_WAIT_TIMEOUT_MS);
  if (replicas === undefined) {
    if (timeoutMs !== undefined) bad('waitTimeout needs wait (the replicas to wait for)');
    return undefined;
  }
  return { replicas, timeoutMs: timeoutMs ?? DEFAULT_REDIS_WAIT_TIMEOUT_MS };
}

const HINT =
  'use sqlite:<path>, sqlite::memory:, postgres://user:pass@host:port/db or redis://host:port';

/**
 * Query parameters whose value is a credential (libpq's `password`, `sslpassword`, and
 * anything named like a secret, token or key), masked wherever a URL is printed.
 */
const SECRET_PARAMETER = /pass|secret|token|key|auth|credential/i;

/**
 * A URL as it may be printed: the password of its user-info and the value of every
 * credential query parameter replaced by `***`. Text that is not a `scheme://` URL is
 * masked between a colon and an `@` and after a `?`, which is where those would be.
 */
export function redactUrl(text: string): string {
  const masked = () => text.replace(/:[^:@/]*@/, ':***@').replace(/\?.*$/s, '?***');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return masked();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return masked();
  }
  if (url.password) url.password = '***';
  const params = [...url.searchParams.keys()];
  for (const name of new Set(params)) {
    if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, '***');
  }
  return url.toString();
}

/** Parses a store URL, or throws a ValidationError naming the problem. */
export function parseStoreUrl(url: string | undefined): StoreUrl {
  const text = (url ?? DEFAULT_STORE_URL).trim();
  if (text === '') throw new ValidationError(`empty store URL; ${HINT}`, 'store URL');
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '' || path === '//') {
      throw new ValidationError(
        `no database path in ${JSON.stringify(text)}; ${HINT}`,
        'store URL',
      );
    }
    if (path === ':memory:')
      return { dialect: 'sqlite', path, memory: true, createDirectory: false };
    if (path.includes('\0')) {
      throw new ValidationError(`bad database path in ${JSON.stringify(text)}`, 'store URL');
    }
    return {
      dialect: 'sqlite',
      path,
      memory: false,
      createDirectory: normalize(path) === normalize(DEFAULT_SQLITE_PATH),
    };
  }
  if (/^postgres(ql)?:\/\//.test(text)) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch (cause) {
      throw new ValidationError(`malformed PostgreSQL URL; ${HINT}`, 'store URL', { cause });
    }
    const poolParam = parsed.searchParams.get('pool');
    let poolSize: number | undefined;
    if (poolParam !== null) {
      poolSize = Number(poolParam);
      if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
        throw new ValidationError(
          `pool must be an integer from 1 to 1000, got ${JSON.stringify(poolParam)}`,
          'store URL',
        );
      }
      parsed.searchParams.delete('pool');
    }
    return {
      dialect: 'postgres',
      connectionString: parsed.toString(),
      host: decodeURIComponent(parsed.hostname) || 'localhost',
      port: parsed.port ? Number(parsed.port) : 5432,
      database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres',
      poolSize,
      redacted: redactUrl(parsed.toString()),
    };
  }
  if (/^redis(\+cluster)?:\/\//i.test(text)) return parseRedisUrl(text);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1];
  throw new ValidationError(
    scheme
      ? `unsupported store scheme ${JSON.stringify(`${scheme}:`)}; ${HINT}`
      : `not a store URL: ${JSON.stringify(redactUrl(text))}; ${HINT}`,
    'store URL',
  );
}

/**
 * `redis://[user:pass@]host:port[/db][?wait=N[&waitTimeout=ms]]`; a typed error for
 * anything else of that scheme.
 */
function parseRedisUrl(text: string): StoreUrl {
  const redacted = redactUrl(text);
  if (/^redis\+cluster:/i.test(text)) return parseRedisClusterUrl(text, redacted);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch (cause) {
    throw new ValidationError(
      `malformed Redis URL ${JSON.stringify(redacted)}; use redis://[user:pass@]host:port[/db]`,
      'store URL',
      { cause },
    );
  }
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const dbText = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const db = dbText === '' ? 0 : Number(dbText);
  if (!/^\d*$/.test(dbText) || !Number.isInteger(db) || db < 0 || db > 65535) {
    throw new ValidationError(
      `the Redis database must be a number (redis://host:port/0), got ${JSON.stringify(dbText)} in ${JSON.stringify(redacted)}`,
      'store URL',
    );
  }
  const bad = (what: string): never => {
    throw new ValidationError(
      `${what} in ${JSON.stringify(redacted)}; use redis://[user:pass@]host:port[/db][?wait=N[&waitTimeout=ms]]`,
      'store URL',
    );
  };
  const params = new URLSearchParams(parsed.searchParams);
  const wait = redisWait(params, bad);
  const unknown = [...params.keys()][0];
  if (unknown !== undefined) bad(`unknown parameter ${JSON.stringify(unknown)}`);
  return {
    dialect: 'redis',
    host: decodeURIComponent(parsed.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port,
    db,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    redacted,
    ...(wait && { wait }),
  };
}

/** The most partitions a cluster store may be created with. */
export const MAX_REDIS_PARTITIONS = 1024;

const CLUSTER_HINT =
  'use redis+cluster://[user:pass@]host:port,host:port,…[?partitions=N][&wait=N[&waitTimeout=ms]]';

/**
 * `redis+cluster://[user:pass@]host:port,host:port,…[?partitions=N][&wait=N[&waitTimeout=ms]]`:
 * the seed nodes of a Redis Cluster (ioredis finds the rest), each with its port; a
 * cluster has database 0 only, so a path is refused; `partitions` is the partition count a
 * new store is created with (an existing store keeps its own); `wait` as on one server.
 */
function parseRedisClusterUrl(text: string, redacted: string): StoreUrl {
  const bad = (what: string): never => {
    throw new ValidationError(
      `${what} in ${JSON.stringify(redacted)}; ${CLUSTER_HINT}`,
      'store URL',
    );
  };
  const rest = text.replace(/^redis\+cluster:\/\//i, '');
  const query = rest.indexOf('?');
  const beforeQuery = query < 0 ? rest : rest.slice(0, query);
  const params = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  const at = beforeQuery.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : beforeQuery.slice(0, at);
  const afterUser = at < 0 ? beforeQuery : beforeQuery.slice(at + 1);
  const slash = afterUser.indexOf('/');
  const hostList = slash < 0 ? afterUser : afterUser.slice(0, slash);
  const path = slash < 0 ? '' : afterUser.slice(slash + 1);
  if (path !== '' && path !== '0') {
    bad(`a Redis Cluster has only database 0, got ${JSON.stringify(path)}`);
  }
  if (hostList === '') bad('no cluster nodes');
  const nodes = hostList.split(',').map((node) => {
    const match = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(node);
    if (!match) bad(`a cluster node must be host:port, got ${JSON.stringify(node)}`);
    const [, host = '', portText = ''] = match as RegExpExecArray;
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      bad(`the port of ${JSON.stringify(node)} must be 1 to 65535`);
    }
    return { host: host.replace(/^\[(.*)\]$/, '$1'), port };
  });
  const wait = redisWait(params, bad);
  let partitions: number | undefined;
  for (const [name, value] of params) {
    if (name !== 'partitions') bad(`unknown parameter ${JSON.stringify(name)}`);
    partitions = Number(value);
    if (!/^\d+$/.test(value) || partitions < 1 || partitions > MAX_REDIS_PARTITIONS) {
      bad(
        `partitions must be an integer from 1 to ${MAX_REDIS_PARTITIONS}, got ${JSON.stringify(value)}`,
      );
    }
  }
  const colon = userinfo?.indexOf(':') ?? -1;
  const username = userinfo === undefined ? '' : colon < 0 ? userinfo : userinfo.slice(0, colon);
  const password = userinfo === undefined || colon < 0 ? '' : userinfo.slice(colon + 1);
  const first = nodes[0] as { host: string; port: number };
  return {
    dialect: 'redis',
    host: first.host,
    port: first.port,
    db: 0,
    username: username ? decodeURIComponent(username) : undefined,
    password: password ? decodeURIComponent(password) : undefined,
    redacted,
    cluster: nodes,
    ...(partitions !== undefined && { partitions }),
    ...(wait && { wait }),
  };
}
