/**
 * A text dump of everything a store holds, read behind the Store's back: every table's
 * rows (each as JSON, sorted) and every sequence's position, on SQLite and PostgreSQL
 * alike. Two dumps are equal exactly when nothing was written in between — which is
 * how the bad-input tests show a refused request changed nothing. A live process's
 * presence heartbeat (`weft_workers.heartbeat_at`) is left out: it moves every few
 * seconds whatever the requests do, and a slow run outlasts its interval. On Redis the
 * dump is every key of the store's database by type (the workers' `heartbeatAt` left out
 * alike).
 */
import Database from 'better-sqlite3';
import { parseStoreUrl } from '../../src/store/url.js';

const asText = (value: unknown) =>
  JSON.stringify(value, (_, v) =>
    typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? v.toString('hex') : v,
  );

/** Columns that move on their own while processes live, by table: left out of a dump. */
const VOLATILE: Record<string, readonly string[]> = { weft_workers: ['heartbeat_at'] };

/** `row` without its table's volatile columns. */
function steady(table: string, row: Record<string, unknown>): Record<string, unknown> {
  const drop = VOLATILE[table];
  if (!drop) return row;
  return Object.fromEntries(Object.entries(row).filter(([column]) => !drop.includes(column)));
}

/** The dump of the store at `url`. */
export async function dumpStore(url: string): Promise<string> {
  const parsed = parseStoreUrl(url);
  const tables: Record<string, string[]> = {};
  if (parsed.dialect === 'sqlite') {
    const db = new Database(parsed.path, { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      const names = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      for (const { name } of names) {
        const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
        tables[name] = rows
          .map((row) => asText(steady(name, row as Record<string, unknown>)))
          .sort();
      }
    } finally {
      db.close();
    }
  } else if (parsed.dialect === 'redis') {
    Object.assign(tables, await dumpRedis(url, parsed.cluster));
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: parsed.connectionString });
    await client.connect();
    try {
      const names = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      );
      for (const { name } of names.rows) {
        const rows = await client.query<{ row: string }>(
          `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
        );
        tables[name] = rows.rows
          .map((r) => (VOLATILE[name] ? JSON.stringify(steady(name, JSON.parse(r.row))) : r.row))
          .sort();
      }
      const sequences = await client.query<{ name: string }>(
        "SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1",
      );
      for (const { name } of sequences.rows) {
        const at = await client.query(`SELECT last_value, is_called FROM "${name}"`);
        tables[`sequence ${name}`] = at.rows.map(asText);
      }
    } finally {
      await client.end();
    }
  }
  return Object.entries(tables)
    .map(([name, rows]) => `-- ${name} (${rows.length})\n${rows.join('\n')}`)
    .join('\n');
}

/** Every key of a Redis store's database (on a cluster: of every master), as text, by key. */
async function dumpRedis(
  url: string,
  cluster?: { host: string; port: number }[],
): Promise<Record<string, string[]>> {
  const { Cluster, Redis } = await import('ioredis');
  const redis = cluster ? new Cluster(cluster) : new Redis(url);
  redis.on('error', () => {});
  try {
    const out: Record<string, string[]> = {};
    // A cluster client knows its masters once it has the slots (after its first reply).
    await redis.ping();
    const keys = (
      redis instanceof Cluster
        ? (await Promise.all(redis.nodes('master').map((node) => node.keys('*')))).flat()
        : await redis.keys('*')
    ).sort();
    for (const key of keys) {
      const type = await redis.type(key);
      let rows: string[];
      if (type === 'hash') {
        const all = await redis.hgetall(key);
        rows = Object.entries(all).map(([field, value]) => {
          if (!key.endsWith(':workers')) return asText([field, value]);
          const { heartbeatAt: _, ...rest } = JSON.parse(value) as Record<string, unknown>;
          return asText([field, rest]);
        });
      } else if (type === 'zset') {
        const flat = await redis.zrange(key, '0', '-1', 'WITHSCORES');
        rows = [];
        for (let i = 0; i < flat.length; i += 2) rows.push(asText([flat[i], flat[i + 1]]));
      } else if (type === 'list') {
        rows = (await redis.lrange(key, 0, -1)).map((line, i) => asText([i, line]));
      } else if (type === 'set') {
        rows = (await redis.smembers(key)).map(asText);
      } else {
        rows = [asText(await redis.get(key))];
      }
      out[`${type} ${key}`] = rows.sort();
    }
    return out;
  } finally {
    redis.disconnect();
  }
}
