/**
 * Looks behind a Redis store at its hand-offs as Redis Streams (docs/store-redis.md,
 * section 3): a plain ioredis connection (a `Cluster` for `redis+cluster://`), the stream
 * key of a contract stream in a partition, and an audit that the streams mirror the
 * messages exactly.
 */
import { Cluster, Redis } from 'ioredis';

/** A plain connection to the store at `url` (one server's database, or the cluster). */
export function plainRedis(url: string): Redis | Cluster {
  if (url.startsWith('redis+cluster://')) {
    const hosts = url
      .slice('redis+cluster://'.length)
      .split(/[/?]/)[0]
      ?.split(',')
      .map((h) => {
        const [host, port] = h.split(':');
        return { host: host ?? '127.0.0.1', port: Number(port) };
      });
    const cluster = new Cluster(hosts ?? []);
    cluster.on('error', () => {});
    return cluster;
  }
  const redis = new Redis(url);
  redis.on('error', () => {});
  return redis;
}

/** The Redis Stream of contract stream `stream` in partition `p`. */
export const streamKey = (p: number, stream: string) => `weft:{p${p}}:s:${stream}`;

/** The partition a message lives in, from its id (`seq × count + partition`). */
export async function partitionOfMessage(redis: Redis | Cluster, id: string): Promise<number> {
  const count = Number((await redis.hget('weft:{g}:meta', 'partitions')) ?? '1');
  return Number(BigInt(id) % BigInt(count));
}

/** One pending entry as `XPENDING key weft - + n` lists it. */
export interface PendingEntry {
  xid: string;
  consumer: string;
  deliveries: number;
}

/** The consumer group's pending entries of a stream key. */
export async function pending(redis: Redis | Cluster, key: string): Promise<PendingEntry[]> {
  if ((await redis.exists(key)) === 0) return [];
  const rows = (await redis.xpending(key, 'weft', '-', '+', 1000)) as [
    string,
    string,
    number,
    number,
  ][];
  return rows.map(([xid, consumer, , deliveries]) => ({ xid, consumer, deliveries }));
}

/** The entries of a stream key: entry id, and its fields as an object. */
export async function entries(
  redis: Redis | Cluster,
  key: string,
): Promise<{ xid: string; fields: Record<string, string> }[]> {
  const rows = await redis.xrange(key, '-', '+');
  return rows.map(([xid, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    return { xid, fields };
  });
}

/**
 * One atomic look (a script) at every partition of one server: every message has its
 * entry (its `xid`) in its stream, named in the pending list for its holder with its
 * delivery count while held and absent from it while not; every entry belongs to a
 * message that names it. Answers the disagreements found (none: the mirror is exact).
 */
const AUDIT = `
local bad = {}
for _, m in ipairs(redis.call('KEYS', 'weft:{p*}:msg:*')) do
  local tag = string.sub(m, 1, string.find(m, '}', 1, true))
  local f = redis.call('HMGET', m, 'stream', 'xid', 'consumer', 'deliveries')
  local s = tag .. ':s:' .. f[1]
  if not f[2] then
    table.insert(bad, 'no entry: ' .. m)
  else
    if #redis.call('XRANGE', s, f[2], f[2]) == 0 then table.insert(bad, 'entry gone: ' .. m) end
    local p = redis.call('XPENDING', s, 'weft', f[2], f[2], 1)
    if f[3] then
      if #p == 0 then table.insert(bad, 'held, not pending: ' .. m)
      elseif p[1][2] ~= f[3] or tostring(p[1][4]) ~= f[4] then
        table.insert(bad, 'pending as ' .. p[1][2] .. '/' .. p[1][4] .. ', held by ' .. f[3] .. '/' .. f[4] .. ': ' .. m)
      end
    elseif #p > 0 then
      table.insert(bad, 'pending, not held: ' .. m)
    end
  end
end
for _, s in ipairs(redis.call('KEYS', 'weft:{p*}:s:*')) do
  local tag = string.sub(s, 1, string.find(s, '}', 1, true))
  for _, e in ipairs(redis.call('XRANGE', s, '-', '+')) do
    local id = e[2][2]
    if redis.call('HGET', tag .. ':msg:' .. id, 'xid') ~= e[1] then
      table.insert(bad, 'entry without its message: ' .. s .. ' ' .. e[1])
    end
  end
  local summary = redis.call('XPENDING', s, 'weft')
  if summary[1] > 0 then
    for _, p in ipairs(redis.call('XPENDING', s, 'weft', '-', '+', summary[1])) do
      if #redis.call('XRANGE', s, p[1], p[1]) == 0 then
        table.insert(bad, 'pending entry deleted: ' .. s .. ' ' .. p[1])
      end
    end
  end
end
return bad
`;

/** Runs the audit on one server (not a cluster: its keys are on several nodes). */
export async function auditStreams(redis: Redis): Promise<string[]> {
  return (await redis.eval(AUDIT, 0)) as string[];
}
