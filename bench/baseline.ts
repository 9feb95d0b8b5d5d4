/**
 * The baseline: the raw cost of one durable write on the same store with the same
 * settings — a loop of single-row UPDATE transactions, each committed (and so synced)
 * on its own, run for a fixed time. Once on one connection (sequential), once on as
 * many connections as the scenario's workers hold (on PostgreSQL those commits can
 * share a WAL flush; SQLite has one writer, so its count is 1). A scenario's steps/s
 * divided by this is how many steps weft gets out of one durable write, a figure that
 * survives a noisy machine better than steps/s alone.
 */
import { rmSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { openConnection } from '../src/store/sqlite/connection.js';
import { redisNodes } from './redis-cluster.js';

/** Writes per second, sequential and with `connections` connections. */
export interface BaselineResult {
  sequential: number;
  parallel: number;
  connections: number;
}

/** What the SQLite store's own connection settings are (read from a connection it opened). */
export interface SqliteSettings {
  version: string;
  journal_mode: string;
  synchronous: string;
  wal_autocheckpoint: string;
}

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/**
 * SQLite: a file opened exactly as the store opens its own (WAL, the store's default
 * synchronous setting), then `BEGIN IMMEDIATE; UPDATE one row; COMMIT` in a loop.
 */
export function sqliteBaseline(
  path: string,
  ms: number,
): { result: BaselineResult; settings: SqliteSettings } {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  const db = openConnection(path, false);
  try {
    db.exec('CREATE TABLE bench_baseline (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
    db.exec('INSERT INTO bench_baseline VALUES (1, 0)');
    const begin = db.prepare('BEGIN IMMEDIATE');
    const update = db.prepare('UPDATE bench_baseline SET v = v + 1 WHERE id = 1');
    const commit = db.prepare('COMMIT');
    const start = performance.now();
    let writes = 0;
    while (performance.now() - start < ms) {
      begin.run();
      update.run();
      commit.run();
      writes++;
    }
    const rate = (writes * 1000) / (performance.now() - start);
    const pragma = (name: string) => String(db.pragma(name, { simple: true }));
    const sync = Number(pragma('synchronous'));
    return {
      result: { sequential: rate, parallel: rate, connections: 1 },
      settings: {
        version: String(db.prepare('SELECT sqlite_version()').pluck().get()),
        journal_mode: pragma('journal_mode'),
        synchronous: SYNCHRONOUS[sync] ?? String(sync),
        wal_autocheckpoint: pragma('wal_autocheckpoint'),
      },
    };
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  }
}

async function loop(client: pg.Client, id: number, until: number): Promise<number> {
  let writes = 0;
  const statement = {
    name: 'bench_baseline_update',
    text: 'UPDATE bench_baseline SET v = v + 1 WHERE id = $1',
    values: [id],
  };
  while (performance.now() < until) {
    await client.query(statement);
    writes++;
  }
  return writes;
}

async function writesPerSecond(url: string, connections: number, ms: number): Promise<number> {
  const clients = Array.from(
    { length: connections },
    () => new pg.Client({ connectionString: url }),
  );
  await Promise.all(clients.map((c) => c.connect()));
  try {
    const start = performance.now();
    const counts = await Promise.all(clients.map((c, i) => loop(c, i + 1, start + ms)));
    return (counts.reduce((a, b) => a + b, 0) * 1000) / (performance.now() - start);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/**
 * PostgreSQL: in the database at `url`, a table with one row per connection; each
 * connection runs `UPDATE bench_baseline SET v = v + 1 WHERE id = $1` (a prepared
 * statement, autocommit: one transaction, one round trip) on its own row in a loop.
 */
export async function postgresBaseline(
  url: string,
  connections: number,
  ms: number,
): Promise<BaselineResult> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query('DROP TABLE IF EXISTS bench_baseline');
    await setup.query('CREATE TABLE bench_baseline (id int PRIMARY KEY, v bigint NOT NULL)');
    await setup.query(
      'INSERT INTO bench_baseline SELECT g, 0 FROM generate_series(1, $1::int) AS g',
      [Math.max(1, connections)],
    );
  } finally {
    await setup.end();
  }
  const sequential = await writesPerSecond(url, 1, ms);
  const parallel = connections > 1 ? await writesPerSecond(url, connections, ms) : sequential;
  return { sequential, parallel, connections };
}

async function redisWritesPerSecond(url: string, connections: number, ms: number): Promise<number> {
  const nodes = redisNodes(url);
  // On a cluster each connection writes a key of its own slot (`{i}`), spread over the masters.
  const clients: (Redis | Cluster)[] = Array.from({ length: connections }, () =>
    nodes.length > 0 ? new Cluster(nodes) : new Redis(url),
  );
  try {
    const start = performance.now();
    const until = start + ms;
    const counts = await Promise.all(
      clients.map(async (redis, i) => {
        let writes = 0;
        while (performance.now() < until) {
          await redis.hincrby(
            nodes.length > 0 ? `bench:baseline:{${i}}` : 'bench:baseline',
            String(i + 1),
            1,
          );
          writes++;
        }
        return writes;
      }),
    );
    return (counts.reduce((a, b) => a + b, 0) * 1000) / (performance.now() - start);
  } finally {
    for (const c of clients) c.disconnect();
  }
}

/**
 * Redis: in the logical database at `url`, `HINCRBY bench:baseline <connection> 1` in a
 * loop, each awaited (one round trip; with `appendfsync always` the AOF is synced before
 * the answer, and commands that arrive together share a sync).
 */
export async function redisBaseline(
  url: string,
  connections: number,
  ms: number,
): Promise<BaselineResult> {
  const sequential = await redisWritesPerSecond(url, 1, ms);
  const parallel = connections > 1 ? await redisWritesPerSecond(url, connections, ms) : sequential;
  return { sequential, parallel, connections };
}
