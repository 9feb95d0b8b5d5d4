/**
 * `?wait=N` (docs/store-redis.md, section 5): a commit is acknowledged only once `N`
 * replicas of the master that ran it have it. After a commit's scripts the store sends
 * `WAIT N timeout` on the connection that ran them — on a Redis Cluster, to the master
 * serving each slot the commit wrote — and a commit fewer replicas acknowledged fails with
 * `StoreError` `STORE_NOT_REPLICATED`. `WAIT` counts the replicas that received what this
 * connection wrote so far, so one `WAIT` per master covers every part of a split commit
 * sent there (and anything else the connection wrote before).
 *
 * `WAIT` does not roll anything back: the master applied the commit whatever the answer.
 * And it is not a consensus: a replica that acknowledged a commit has it in memory (and
 * in its AOF by its own `appendfsync`), which is what a failover to that replica keeps.
 */
import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
import { StoreError } from '../../core/errors.js';
import type { RedisWait } from '../url.js';
import { isCluster, type RedisConnection } from './connection.js';

/** The error code of a commit too few replicas acknowledged. */
export const NOT_REPLICATED = 'STORE_NOT_REPLICATED';

/**
 * The cluster slot of a key: of its hash tag (`{…}`, when not empty), else of the key —
 * `cluster-key-slot`, the CRC16 ioredis itself routes commands by (a CommonJS module with
 * no types, loaded with `require` as ioredis is in connection.ts).
 */
export const keySlot = createRequire(import.meta.url)('cluster-key-slot') as (
  key: string,
) => number;

/**
 * Masters whose last `WAIT` came back short. `WAIT` blocks the connection it runs on, and
 * every command queued behind it (the store's reads and claims share it), for its whole
 * timeout: while a master has fewer replicas connected than asked for, a commit there
 * fails at once instead (`INFO replication`), until enough are connected again.
 */
const short = new WeakSet<Redis>();

/** The replicas connected to a master (`INFO replication`, `connected_slaves`). */
async function connectedReplicas(master: Redis): Promise<number> {
  const info = (await master.info('replication')) as string;
  return Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
}

/** `host:port` of a node's connection, as ioredis names it in `Cluster.slots`. */
function nodeName(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/**
 * The connection to the master now serving hash tag `tag` (`g`, `p<N>`): the one a
 * command on one of its keys went to, so a `WAIT` there counts what that command wrote.
 */
function masterOf(cluster: Cluster, tag: string): Redis | undefined {
  const name = cluster.slots[keySlot(`{${tag}}`)]?.[0];
  if (name === undefined) return undefined;
  return cluster.nodes('all').find((node) => nodeName(node) === name);
}

/**
 * Waits until `wait.replicas` replicas have what this store's connection wrote on the
 * masters serving `tags` (the hash tags of a commit's parts; on one server, the server),
 * or throws `StoreError` `STORE_NOT_REPLICATED` naming how many had it.
 */
export async function waitForReplicas(
  redis: RedisConnection,
  tags: Iterable<string>,
  wait: RedisWait,
  where: string,
): Promise<void> {
  const masters = new Map<string, Redis>();
  if (!isCluster(redis)) {
    masters.set(where, redis);
  } else {
    const cluster = redis as unknown as Cluster;
    for (const tag of tags) {
      const master = masterOf(cluster, tag);
      if (!master) {
        throw notReplicated(
          `the commit was sent to the Redis Cluster at ${where}, but no master serves the slot of {${tag}} now, so its replicas cannot be asked`,
        );
      }
      masters.set(`${where} (master ${nodeName(master)})`, master);
    }
  }
  await Promise.all(
    [...masters].map(async ([name, master]) => {
      let acked: number;
      try {
        if (short.has(master)) {
          const connected = await connectedReplicas(master);
          if (connected < wait.replicas) {
            throw notReplicated(
              `the commit was applied on the Redis master at ${name}, but it has ${connected} of the ${wait.replicas} replicas ?wait=${wait.replicas} asks for connected; ${UNACKNOWLEDGED}`,
            );
          }
        }
        acked = await master.wait(wait.replicas, wait.timeoutMs);
      } catch (error) {
        if (error instanceof StoreError) throw error;
        throw notReplicated(
          `the commit was applied on the Redis master at ${name}, but asking its replicas for it failed (${error instanceof Error ? error.message : String(error)}); ${UNACKNOWLEDGED}`,
          error,
        );
      }
      if (acked >= wait.replicas) {
        short.delete(master);
        return;
      }
      short.add(master);
      throw notReplicated(
        `the commit was applied on the Redis master at ${name}, but ${acked} of the ${wait.replicas} replicas ?wait=${wait.replicas} asks for had it after ${wait.timeoutMs} ms; ${UNACKNOWLEDGED}`,
      );
    }),
  );
}

const UNACKNOWLEDGED =
  'it is not acknowledged: it stands while that master serves, and is lost if a replica without it is promoted (a lost step runs again when its message’s lease ends)';

function notReplicated(message: string, cause?: unknown): StoreError {
  return new StoreError(message, { code: NOT_REPLICATED, ...(cause !== undefined && { cause }) });
}

/**
 * The warning `?wait=N` calls for at open: a master with fewer than `N` replicas
 * connected (`INFO replication`), whose every commit would fail after the timeout until
 * more connect; undefined when every master has enough. On a cluster, the first master
 * short of replicas is named.
 */
export async function replicationWarning(
  redis: RedisConnection,
  wait: RedisWait,
  where: string,
): Promise<string | undefined> {
  const masters = isCluster(redis)
    ? (redis as unknown as Cluster)
        .nodes('master')
        .map((node) => ({ node, name: `${where} (master ${nodeName(node)})` }))
    : [{ node: redis as Redis, name: where }];
  for (const { node, name } of masters) {
    let connected: number;
    try {
      connected = await connectedReplicas(node);
    } catch {
      return `weft: could not read the replicas of the Redis store at ${name} (INFO replication is refused); with ?wait=${wait.replicas} a commit fails with ${NOT_REPLICATED} when fewer replicas have it`;
    }
    if (connected < wait.replicas) {
      return `weft: the Redis store at ${name} has ${connected} replica${connected === 1 ? '' : 's'} connected and ?wait=${wait.replicas} asks for ${wait.replicas}: every commit there fails with ${NOT_REPLICATED} after ${wait.timeoutMs} ms until more replicas connect`;
    }
  }
  return undefined;
}
