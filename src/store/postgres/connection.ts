/**
 * The PostgreSQL connection pool and how driver failures become typed errors: an
 * unreachable server, bad credentials and a missing database each get a
 * {@link StoreError} that names the host, port or database and what to check — with the
 * URL's password never shown.
 */
import pg from 'pg';
import { StoreError } from '../../core/errors.js';
import type { StoreUrl } from '../url.js';

/** A parsed PostgreSQL URL. */
export type PostgresUrl = Extract<StoreUrl, { dialect: 'postgres' }>;

const INT8_OID = 20;

/** Type parsers: `bigint` columns (epoch ms, message ids, counts) read as JS numbers. */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** How long to wait for a connection before calling the server unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The client configuration for `url` (pool or single connection). */
export function clientConfig(url: PostgresUrl): pg.ClientConfig {
  return {
    connectionString: url.connectionString,
    types: PG_TYPES,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'weft',
  };
}

/**
 * A pool of `size` connections; its idle clients' failures are absorbed (the next use
 * reconnects). Its connections pipeline: statements issued on one before the previous
 * answered go out at once and are answered in order, so a transaction that issues its
 * independent statements together pays one round trip for them, not one each.
 */
export function createPool(url: PostgresUrl, size: number): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(url),
    pipeline: true,
    max: size,
    idleTimeoutMillis: 30_000,
    // Idle connections alone do not keep a process alive (a script that forgot close()).
    allowExitOnIdle: true,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool drops it and the next checkout reconnects.
  });
  // Every client hears its own errors for as long as it lives. The pool listens only while
  // a client is idle, and a checkout stops listening before the code that asked for the
  // client can: a server that ends a new connection as it starts (a restart) sends its
  // FATAL in the same packet as the connection's first ReadyForQuery, and the driver
  // emitted it with nobody listening, which killed the process. A client that failed so
  // fails its next statement, which is where its caller learns of it.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/** The SQLSTATE of a server error, if it is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOENT',
]);

/** True for a failure to reach or keep a connection (not an SQL error). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const state = sqlState(error);
  if (state?.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03') {
    return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout expired|connection timeout|Client has encountered a connection error/i.test(
    message,
  );
}

/** The unix-socket directory the URL names (`?host=/dir` or an encoded path host), if any. */
function socketDir(url: PostgresUrl): string | undefined {
  let host: string | null = url.host;
  try {
    host = new URL(url.connectionString).searchParams.get('host') ?? url.host;
  } catch {
    // parseStoreUrl already accepted it; keep the parsed host
  }
  return host?.startsWith('/') ? host : undefined;
}

function where(url: PostgresUrl): string {
  const dir = socketDir(url);
  return dir
    ? `PostgreSQL on the unix socket in ${dir} (port ${url.port})`
    : `PostgreSQL at ${url.host}:${url.port}`;
}

function howToReach(url: PostgresUrl): string {
  const dir = socketDir(url);
  return dir
    ? `check that the server is running and has its socket .s.PGSQL.${url.port} in ${dir}`
    : `check that the server is running and accepts TCP connections on host ${url.host} port ${url.port}`;
}

/** Turns a failure to connect into a StoreError that says what to check. */
export function connectError(error: unknown, url: PostgresUrl): StoreError {
  const state = sqlState(error);
  const detail = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (state === '28P01' || state === '28000') {
    return new StoreError(
      `${where(url)} refused the login (${detail}): check the user and password in the store URL ${url.redacted} and the server's pg_hba.conf`,
      { code: 'STORE_AUTH', cause: error },
    );
  }
  if (state === '3D000') {
    return new StoreError(
      `database ${JSON.stringify(url.database)} does not exist on ${where(url)}: create it (createdb ${url.database}) or fix the store URL ${url.redacted}`,
      { code: 'STORE_NO_DATABASE', cause: error },
    );
  }
  if (state === '53300') {
    return new StoreError(
      `${where(url)} has no free connection slots (${detail}): lower ?pool=N in the store URL or raise max_connections`,
      { code: 'STORE_UNREACHABLE', cause: error },
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StoreError(
      `cannot reach ${where(url)}: the host name ${JSON.stringify(url.host)} does not resolve (${code}); check the host in the store URL ${url.redacted}`,
      { code: 'STORE_UNREACHABLE', cause: error },
    );
  }
  if (isConnectionError(error) || state === undefined) {
    const reason = typeof code === 'string' ? code : detail;
    return new StoreError(
      `cannot reach ${where(url)} (${reason}): ${howToReach(url)}, and that the store URL ${url.redacted} is right`,
      { code: 'STORE_UNREACHABLE', cause: error },
    );
  }
  return new StoreError(`${where(url)}: ${detail}${state ? ` (${state})` : ''}`, {
    code: 'STORE_SQL',
    cause: error,
  });
}

/** SQLSTATEs of failures a caller may retry: serialization failure and deadlock. */
export const RETRYABLE_STATES = new Set(['40001', '40P01']);

/** Wraps a driver failure in a StoreError; typed weft errors pass through. */
export function asStoreError(error: unknown, url: PostgresUrl): unknown {
  if (error instanceof StoreError || !(error instanceof Error)) return error;
  const state = sqlState(error);
  if (state !== undefined && RETRYABLE_STATES.has(state)) {
    return new StoreError(
      `PostgreSQL aborted the transaction (${error.message}, ${state}); it changed nothing and may be retried`,
      { code: 'STORE_CONFLICT', cause: error },
    );
  }
  if (state === undefined && isConnectionError(error)) return connectError(error, url);
  if (state === undefined) return error;
  return new StoreError(`PostgreSQL: ${error.message} (${state})`, {
    code: 'STORE_SQL',
    cause: error,
  });
}
