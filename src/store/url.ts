/**
 * Store URLs, parsed in one place. `sqlite:<path>` (or `sqlite::memory:`) opens the
 * embedded store (its directory must exist, except for the default `./.weft/weft.db`); `postgres://` or `postgresql://` opens PostgreSQL; `redis://[user:pass@]host:port[/db]`
 * opens the Redis store (docs/store-redis.md; `redis+cluster://` is refused until the
 * cluster is built). Anything else is a {@link ValidationError} that says what is accepted.
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
    };

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

/** `redis://[user:pass@]host:port[/db]`; a typed error for anything else of that scheme. */
function parseRedisUrl(text: string): StoreUrl {
  const redacted = redactUrl(text);
  if (/^redis\+cluster:/i.test(text)) {
    throw new ValidationError(
      `redis+cluster:// is not supported yet (the Redis store runs on one server for now, docs/store-redis.md): ${JSON.stringify(redacted)}`,
      'store URL',
    );
  }
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
  if ([...parsed.searchParams.keys()].length > 0) {
    throw new ValidationError(
      `a Redis store URL takes no parameters yet, got ${JSON.stringify(redacted)}`,
      'store URL',
    );
  }
  return {
    dialect: 'redis',
    host: decodeURIComponent(parsed.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port,
    db,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    redacted,
  };
}
