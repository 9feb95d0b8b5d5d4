/** The store URL parser: what it accepts, and typed errors for what it does not. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { DEFAULT_STORE_URL, parseStoreUrl, redactUrl } from '../../src/store/url.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('parseStoreUrl', () => {
  it('defaults to the embedded SQLite file', () => {
    expect(DEFAULT_STORE_URL).toBe('sqlite:./.weft/weft.db');
    expect(parseStoreUrl(undefined)).toEqual({
      dialect: 'sqlite',
      path: './.weft/weft.db',
      memory: false,
      createDirectory: true,
    });
  });

  it('creates the directory of the default database only, however it is written', () => {
    expect(parseStoreUrl('sqlite:./.weft/weft.db')).toMatchObject({ createDirectory: true });
    expect(parseStoreUrl('sqlite:.weft/weft.db')).toMatchObject({ createDirectory: true });
    expect(parseStoreUrl('sqlite:./.weft/other.db')).toMatchObject({ createDirectory: false });
    expect(parseStoreUrl('sqlite:/tmp/.weft/weft.db')).toMatchObject({ createDirectory: false });
  });

  it('accepts SQLite paths and memory', () => {
    expect(parseStoreUrl('sqlite:/tmp/x.db')).toMatchObject({ path: '/tmp/x.db', memory: false });
    expect(parseStoreUrl('sqlite:///tmp/x.db')).toMatchObject({ path: '/tmp/x.db' });
    expect(parseStoreUrl('sqlite:data/w.db')).toMatchObject({ path: 'data/w.db' });
    expect(parseStoreUrl('  sqlite::memory:  ')).toEqual({
      dialect: 'sqlite',
      path: ':memory:',
      memory: true,
      createDirectory: false,
    });
  });

  it('accepts PostgreSQL URLs, with a pool size, and redacts the password', () => {
    const url = parseStoreUrl('postgres://weft:secret@db.local:6543/jobs?pool=7');
    expect(url).toMatchObject({
      dialect: 'postgres',
      host: 'db.local',
      port: 6543,
      database: 'jobs',
      poolSize: 7,
    });
    if (url.dialect !== 'postgres') throw new Error('expected postgres');
    expect(url.redacted).not.toContain('secret');
    expect(url.connectionString).not.toContain('pool=');
    expect(parseStoreUrl('postgresql://localhost/')).toMatchObject({
      port: 5432,
      database: 'postgres',
      poolSize: undefined,
    });
  });

  it('reads a Redis Cluster URL: its seed nodes, credentials and partition count', () => {
    expect(parseStoreUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002')).toEqual({
      dialect: 'redis',
      host: '10.0.0.1',
      port: 7000,
      db: 0,
      username: undefined,
      password: undefined,
      redacted: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002',
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    const url = parseStoreUrl('redis+cluster://weft:s3cret@a:7000,b:7001/0?partitions=32');
    expect(url).toMatchObject({ username: 'weft', password: 's3cret', partitions: 32 });
    if (url.dialect !== 'redis') throw new Error('expected redis');
    expect(url.redacted).not.toContain('s3cret');
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['sqlite:', /no database path/],
    ['mysql://localhost/db', /unsupported store scheme "mysql:"/],
    ['redis+cluster://', /no cluster nodes/],
    ['redis+cluster://a:7000,b', /a cluster node must be host:port, got "b"/],
    ['redis+cluster://a:7000,b:70000', /the port of "b:70000" must be 1 to 65535/],
    ['redis+cluster://a:7000/3', /a Redis Cluster has only database 0, got "3"/],
    ['redis+cluster://a:7000?partitions=0', /partitions must be an integer from 1 to 1024/],
    ['redis+cluster://a:7000?partitions=x', /partitions must be an integer/],
    ['redis+cluster://a:7000?tls=1', /unknown parameter "tls"/],
    ['redis://localhost/zero', /Redis database must be a number/],
    ['redis://localhost:6379/0?tls=1', /unknown parameter "tls"/],
    ['redis://localhost?wait=0', /wait must be an integer from 1 to 64, got "0"/],
    ['redis://localhost?wait=two', /wait must be an integer from 1 to 64, got "two"/],
    ['redis://localhost?wait=1&wait=2', /wait is given 2 times/],
    ['redis://localhost?wait=1&waitTimeout=-5', /waitTimeout must be an integer from 1 to 600000/],
    ['redis://localhost?waitTimeout=100', /waitTimeout needs wait/],
    ['redis+cluster://a:7000?wait=1.5', /wait must be an integer from 1 to 64, got "1.5"/],
    ['redis+cluster://a:7000?wait=1&waitTimeout=0', /waitTimeout must be an integer/],
    ['redis://[bad', /malformed Redis URL/],
    ['just-a-path.db', /not a store URL/],
    ['postgres://localhost/db?pool=0', /pool must be an integer/],
    ['postgres://localhost/db?pool=abc', /pool must be an integer/],
    ['postgres://localhost/db?pool=1.5', /pool must be an integer/],
    ['postgres://[bad', /malformed PostgreSQL URL/],
  ])('rejects %j with a ValidationError', (text, message) => {
    let error: unknown;
    try {
      parseStoreUrl(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(message);
    expect((error as ValidationError).where).toBe('store URL');
  });

  it('parses a Redis URL, with its password left out of what is printed', () => {
    expect(parseStoreUrl('redis://127.0.0.1:6390/2')).toMatchObject({
      dialect: 'redis',
      host: '127.0.0.1',
      port: 6390,
      db: 2,
    });
    const url = parseStoreUrl('redis://weft:s3cret@cache.local');
    expect(url).toMatchObject({ dialect: 'redis', port: 6379, db: 0, password: 's3cret' });
    expect(url.dialect === 'redis' && url.redacted).toBe('redis://weft:***@cache.local');
  });

  it('reads ?wait=N[&waitTimeout=ms] on one server and on a cluster (1 s when no timeout is given)', () => {
    expect(parseStoreUrl('redis://127.0.0.1:6390/2?wait=1')).toMatchObject({
      db: 2,
      wait: { replicas: 1, timeoutMs: 1_000 },
    });
    expect(parseStoreUrl('redis://127.0.0.1:6390?wait=2&waitTimeout=250')).toMatchObject({
      wait: { replicas: 2, timeoutMs: 250 },
    });
    expect(
      parseStoreUrl('redis+cluster://a:7000,b:7001?partitions=8&wait=1&waitTimeout=500'),
    ).toMatchObject({ partitions: 8, wait: { replicas: 1, timeoutMs: 500 } });
    expect(parseStoreUrl('redis://127.0.0.1:6390')).not.toHaveProperty('wait');
  });

  it('masks every credential a URL can carry, wherever it is printed', () => {
    const url = parseStoreUrl(
      'postgres://weft:pa55@db.example:5433/app?password=hunter2&sslpassword=s3cr3t&application_name=w&api_key=k3y',
    );
    expect(url.dialect === 'postgres' && url.redacted).toBe(
      'postgres://weft:***@db.example:5433/app?password=***&sslpassword=***&application_name=w&api_key=***',
    );
    expect(redactUrl('postgres://u@h/db?PASSWORD=x&password=y')).toBe(
      'postgres://u@h/db?PASSWORD=***&password=***',
    );
    expect(redactUrl('postgres://u@h/db?sslmode=require')).toBe(
      'postgres://u@h/db?sslmode=require',
    );
    // Not a URL at all: still nothing after a user-info colon or a query mark.
    expect(redactUrl('u:hunter2@h/db?password=x')).toBe('u:***@h/db?***');
    expect(() => parseStoreUrl('u:hunter2@h/db?password=x')).toThrow(/^(?!.*hunter2)/s);
  });
});

describe("the README's store URLs", () => {
  it('are URLs the store opens: PostgreSQL, one Redis server, a Redis Cluster', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const urls = [...readme.matchAll(/^export WEFT_STORE='([^']+)'$/gm)].map((m) => m[1] ?? '');
    expect(urls.map((u) => parseStoreUrl(u))).toMatchObject([
      { dialect: 'postgres', host: 'db.example.com', poolSize: 20 },
      { dialect: 'redis', host: 'redis.example.com', port: 6379, db: 0 },
      {
        dialect: 'redis',
        cluster: [{ host: '10.0.0.1' }, { host: '10.0.0.2' }, { host: '10.0.0.3' }],
      },
    ]);
  });
});
