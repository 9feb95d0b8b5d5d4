/**
 * What the Redis server keeps of a commit (docs/store-redis.md, section 5), read at open:
 * with `appendonly yes` and `appendfsync always` a committed step survives a SIGKILL of
 * `redis-server` and a power cut; anything else loses committed steps in some crash, and
 * the store says which setting and what it loses.
 */
import type { Cluster, Redis } from 'ioredis';
import { isCluster, type RedisConnection } from './connection.js';

/**
 * The warning the server's persistence settings call for; undefined when they are durable.
 * On a Redis Cluster every master is read, and the first that would lose steps is named.
 */
export async function durabilityWarning(
  redis: RedisConnection,
  where: string,
): Promise<string | undefined> {
  if (!isCluster(redis)) return serverWarning(redis, where);
  for (const node of (redis as unknown as Cluster).nodes('master')) {
    const warning = await serverWarning(
      node,
      `${where} (master ${node.options.host}:${node.options.port})`,
    );
    if (warning) return warning;
  }
  return undefined;
}

/** {@link durabilityWarning} of one server. */
async function serverWarning(redis: Redis, where: string): Promise<string | undefined> {
  let settings: Map<string, string>;
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'append*')) as string[];
    settings = new Map();
    for (let i = 0; i + 1 < reply.length; i += 2)
      settings.set(reply[i] as string, reply[i + 1] as string);
  } catch {
    return `weft: could not read the persistence settings of the Redis store at ${where} (CONFIG GET is refused); committed steps survive a crash of redis-server only with appendonly yes and appendfsync always`;
  }
  const appendonly = settings.get('appendonly');
  const appendfsync = settings.get('appendfsync');
  if (appendonly !== 'yes') {
    return `weft: the Redis store at ${where} runs with appendonly ${appendonly ?? '(unknown)'}: a restart of redis-server loses every step committed since its last snapshot; set appendonly yes and appendfsync always`;
  }
  if (appendfsync !== 'always') {
    return `weft: the Redis store at ${where} runs with appendfsync ${appendfsync ?? '(unknown)'}: a SIGKILL of redis-server loses nothing, but a machine crash or power cut loses the steps committed in the last ${appendfsync === 'everysec' ? 'second or two' : 'up to 30 seconds'}; set appendfsync always`;
  }
  return undefined;
}
