/**
 * The Redis store (issue 23, phase 1; docs/store-redis.md): one ioredis connection for
 * operations and, while anyone listens, one for notices.
 *
 * Transactions are optimistic (redis-tx.ts): the callback runs against an attempt that
 * reads from Redis and buffers its writes; the commit script checks what it read and
 * applies what it wrote in one step. When a check fails (someone committed a change to
 * what the attempt read), nothing was written and the callback runs again on a fresh
 * attempt, up to {@link TRANSACTION_TRIES} times, then fails with `StoreError`
 * `STORE_CONFLICT`. So on this store a callback may run more than once.
 *
 * Inside `transaction(fn)`, calls made on the Store itself join the open transaction,
 * and a nested `transaction` joins it too, taking back only its own writes when its
 * callback throws (a savepoint), as on the SQL stores.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Clock, SystemClock } from '../../core/clock.js';
import { StoreError } from '../../core/errors.js';
import type { MigrationReport } from '../migration-report.js';
import { NoticeHub, noticeKey } from '../notices.js';
import type { Notice, Store, StoreTx } from '../store.js';
import type { StoreOptions } from '../store-options.js';
import type { CommitPlan } from './commit-script.js';
import {
  asStoreError,
  connect,
  isCluster,
  type RedisConnection,
  type RedisUrl,
} from './connection.js';
import { DueHeads } from './due-heads.js';
import { durabilityWarning } from './durability.js';
import { fenceKey, globalKeys, LAYOUT_VERSION, partitionKeys } from './keys.js';
import { DEFAULT_CLUSTER_PARTITIONS, Partitions } from './partitions.js';
import { redisStoreTx } from './redis-ops.js';
import { type CommitOutcome, RedisTx } from './redis-tx.js';
import { replicationWarning, waitForReplicas } from './replication.js';
import { SplitCommits } from './split-commit.js';

/** How many times a transaction runs before a conflict is the caller's. */
export const TRANSACTION_TRIES = 50;

/**
 * How many times a transaction refused only by a split commit's fence waits for it to go,
 * beyond its {@link TRANSACTION_TRIES} (a dead client's fence is resolved once it is
 * {@link SPLIT_LEASE_MS} old), and how often, in those waits, it looks whether the fence
 * is old enough to resolve itself.
 */
const FENCE_WAITS = 400;
const FENCE_LOOK_EVERY = 20;

/** How often a store on a cluster sweeps for split commits dead clients left. */
const SPLIT_SWEEP_MS = 1_000;

/** The open transaction a callback runs in. */
interface TxFrame {
  owner: RedisStore;
  tx: RedisTx;
  active: boolean;
}

const txContext = new AsyncLocalStorage<TxFrame>();

/** The notice channel prefix (keys.ts `notice`). */
const CHANNEL_PREFIX = partitionKeys.notice('');

/** A commit's outcome; when it wrote anything, the hash tags of the slots it wrote. */
type Committed = CommitOutcome & { wrote?: readonly string[] };

/** Opens the Redis store at `url` and records (or checks) its layout version. */
export async function openRedisStore(url: RedisUrl, options: StoreOptions = {}): Promise<Store> {
  const clock = options.clock ?? new SystemClock();
  const redis = await connect(url);
  let migration: MigrationReport;
  let partitions: Partitions;
  try {
    // The layout and durability reads in one round trip (the connection pipelines what
    // is sent together); the partition count once the layout is there.
    const [found, ...warnings] = await Promise.all([
      layout(redis, url, options.migrate ?? true),
      durabilityWarning(redis, url.redacted),
      url.wait && replicationWarning(redis, url.wait, url.redacted),
    ]);
    migration = found;
    partitions = new Partitions(await partitionCount(redis, url));
    const warn = options.onWarning ?? ((m: string) => process.stderr.write(`${m}\n`));
    for (const warning of warnings) if (warning) warn(warning);
  } catch (error) {
    redis.disconnect();
    throw asStoreError(error, url);
  }
  return new RedisStore(redis, url, clock, migration, partitions).store;
}

/**
 * The store's partition count: fixed when the store is first created (`HSETNX` of
 * `partitions` in `weft:{g}:meta`, so two processes creating it agree), and read back
 * ever after. A store from before partitions has one.
 */
async function partitionCount(redis: RedisConnection, url: RedisUrl): Promise<number> {
  const wanted = url.partitions ?? (url.cluster ? DEFAULT_CLUSTER_PARTITIONS : 1);
  await redis.hsetnx(globalKeys.meta, 'partitions', String(wanted));
  const stored = Number((await redis.hget(globalKeys.meta, 'partitions')) ?? 1);
  if (!Number.isInteger(stored) || stored < 1) {
    throw new StoreError(
      `the Redis store at ${url.redacted} records ${stored} partitions in weft:{g}:meta; expected a positive integer`,
      { code: 'SCHEMA_TOO_NEW' },
    );
  }
  return stored;
}

/** The layout version found, and recorded when the store is new. */
async function layout(
  redis: RedisConnection,
  url: RedisUrl,
  migrate: boolean,
): Promise<MigrationReport> {
  const found = Number((await redis.hget(globalKeys.meta, 'layout')) ?? 0);
  if (found > LAYOUT_VERSION) {
    throw new StoreError(
      `the Redis store at ${url.redacted} has layout version ${found}, newer than this version of weft understands (${LAYOUT_VERSION}); upgrade weft, or use another database`,
      { code: 'SCHEMA_TOO_NEW' },
    );
  }
  if (found === LAYOUT_VERSION) return { from: found, to: found, applied: [] };
  if (!migrate) {
    throw new StoreError(
      `the Redis store at ${url.redacted} is at layout version ${found} and this weft needs ${LAYOUT_VERSION}; open it with migrations enabled (migrate: true)`,
      { code: 'SCHEMA_OUTDATED' },
    );
  }
  await redis.hset(globalKeys.meta, 'layout', String(LAYOUT_VERSION));
  return { from: found, to: LAYOUT_VERSION, applied: [`redis-layout-${LAYOUT_VERSION}`] };
}

/** Closes a connection: politely when it is up, at once when it is not (a server gone). */
async function quit(redis: RedisConnection): Promise<void> {
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}

/** The order a split commit runs its slots in: `{g}` first, then partitions by number. */
function slotOrder(tag: string): number {
  if (tag === 'g') return -1;
  const partition = /^p(\d+)$/.exec(tag);
  return partition ? Number(partition[1]) : Number.MAX_SAFE_INTEGER;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One connection's store. */
class RedisStore {
  readonly store: Store;
  private readonly hub = new NoticeHub();
  /** Listeners per notice key, to subscribe and unsubscribe channels. */
  private readonly listening = new Map<string, number>();
  private subscriber: RedisConnection | undefined;
  private closed = false;
  private readonly clock: Clock;
  /** True on a Redis Cluster. */
  private readonly cluster: boolean;
  /** With several partitions: what claims last saw at each one's stream heads. */
  private readonly dueHeads: DueHeads | undefined;
  /** On a cluster: commits over several slots, and the sweep for those left half done. */
  private readonly split: SplitCommits | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly url: RedisUrl,
    clock: Clock,
    migration: MigrationReport,
    private readonly partitions: Partitions,
  ) {
    this.cluster = isCluster(redis);
    this.dueHeads = partitions.count > 1 ? new DueHeads(partitions.count) : undefined;
    if (this.cluster) {
      const tags = ['g', ...partitions.all().map((p) => `p${p}`)];
      this.split = new SplitCommits(redis, tags);
      this.sweepTimer = setInterval(() => this.sweep(), SPLIT_SWEEP_MS);
      this.sweepTimer.unref();
    }
    // Times are stored as whole milliseconds.
    this.clock = { now: () => Math.round(clock.now()), sleep: (t, s) => clock.sleep(t, s) };
    const direct = redisStoreTx((op) => this.direct(op));
    this.store = Object.assign(direct, {
      dialect: 'redis' as const,
      url: url.redacted,
      migration,
      transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => this.transaction(fn),
      subscribe: (notice: Notice, listener: () => void) => this.subscribe(notice, listener),
      close: () => this.close(),
    });
  }

  /** Runs an operation on an attempt, with Redis's errors made typed. */
  private async run<T>(op: (tx: RedisTx) => Promise<T> | T, tx: RedisTx): Promise<T> {
    try {
      return await op(tx);
    } catch (error) {
      throw asStoreError(error, this.url);
    }
  }

  /** A direct call on the Store: the caller's open transaction, or one of its own. */
  private direct<T>(op: (tx: RedisTx) => Promise<T> | T): Promise<T> {
    const frame = txContext.getStore();
    if (frame?.owner === this && frame.active) return this.run(op, frame.tx);
    return this.transaction(() => this.run(op, (txContext.getStore() as TxFrame).tx));
  }

  private async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const outer = txContext.getStore();
    if (outer?.owner === this && outer.active) return this.nested(outer, fn);
    let fenceWaits = 0;
    for (let attempt = 1; ; attempt++) {
      this.assertOpen();
      const frame: TxFrame = {
        owner: this,
        tx: new RedisTx(this.redis, this.clock, this.partitions, this.cluster, this.dueHeads),
        active: true,
      };
      let result: T | undefined;
      let outcome: Committed;
      try {
        result = await txContext.run(frame, () => fn(this.txFor(frame)));
        frame.active = false;
        // An attempt planned from a state another commit replaced (RedisTx.doom) commits
        // nothing, even when its callback caught the error and went on.
        const doomed = frame.tx.doomed;
        outcome = doomed ? { status: 'conflict', ...doomed } : await this.commit(frame.tx);
      } catch (error) {
        frame.active = false;
        // ...and runs again, as after a conflict at commit, whatever the callback threw.
        if (!frame.tx.doomed) {
          await this.compensate(frame.tx);
          throw error;
        }
        outcome = { status: 'conflict', ...frame.tx.doomed };
      }
      if (outcome.status === 'ok') {
        await frame.tx.committed();
        // `?wait=N`: acknowledged only once N replicas have it. A shortfall throws
        // STORE_NOT_REPLICATED; the master applied the commit, so nothing is given back.
        if (this.url.wait && outcome.wrote) {
          await waitForReplicas(this.redis, outcome.wrote, this.url.wait, this.url.redacted);
        }
        return result as T;
      }
      await this.compensate(frame.tx);
      if (outcome.field === 'fence' && fenceWaits < FENCE_WAITS) {
        // Another commit is between its two phases on a slot this one checks: a wait
        // that does not count as a try (a dead client's fence is resolved when old).
        fenceWaits++;
        attempt--;
        if (fenceWaits % FENCE_LOOK_EVERY === 0) {
          await this.split?.resolveFenceAt(outcome.key).catch(() => {});
        }
        await sleep(5 + Math.random() * 20);
        continue;
      }
      if (attempt >= TRANSACTION_TRIES) {
        throw new StoreError(
          `a transaction conflicted ${attempt} times (last on ${outcome.key} ${JSON.stringify(outcome.field)}): others kept changing what it read; nothing it wrote was kept`,
          { code: 'STORE_CONFLICT' },
        );
      }
      // A short random wait that grows, so the two sides do not meet again.
      await sleep(Math.random() * Math.min(50, 2 * attempt));
    }
  }

  /** Gives back what the attempt did at once (its claims); a failure here is logged by nobody: the leases end. */
  private async compensate(tx: RedisTx, mark?: number): Promise<void> {
    try {
      await tx.compensate(mark);
      if (mark === undefined) await tx.releaseLocks();
    } catch {
      // A claim that could not be given back stays held until its lease ends; a lock,
      // until its lease does.
    }
  }

  /**
   * Runs the commit script (nothing to check or write: nothing to do). On a Redis
   * Cluster a script touches one slot, so a commit whose keys are in several slots is
   * split, one script per slot, and made whole by split-commit.ts (a fence on each slot
   * but the primary's, then the primary part with the record of the rest, then the rest;
   * docs/store-redis.md, section 6). Every part that checks anything also checks that no
   * other commit's fence is on its slot, and is refused (the transaction runs again)
   * while one is.
   */
  private async commit(tx: RedisTx): Promise<Committed> {
    const plan = tx.plan();
    if (plan.empty) return { status: 'ok' };
    try {
      if (!this.split) {
        const outcome = await this.runPlan(plan);
        return outcome.status === 'ok' ? { status: 'ok', wrote: ['server'] } : outcome;
      }
      const parts = [...plan.bySlot()]
        .map(([tag, part]) => ({ tag, part }))
        .sort((a, b) => slotOrder(a.tag) - slotOrder(b.tag));
      let outcome: CommitOutcome;
      if (parts.length === 1) {
        const { tag, part } = parts[0] as (typeof parts)[number];
        // No token of its own: any fence on the slot is another commit's.
        outcome = await this.runPlan(part.checks ? part.fenced(fenceKey(tag), '') : part);
      } else {
        outcome = await this.split.commit(parts);
      }
      if (outcome.status !== 'ok') return outcome;
      const wrote = parts.map((p) => p.tag);
      if (tx.wroteDirectory && !wrote.includes('g')) wrote.push('g');
      return { status: 'ok', wrote };
    } catch (error) {
      throw asStoreError(error, this.url);
    }
  }

  /** Runs one commit script. */
  private async runPlan(plan: CommitPlan): Promise<CommitOutcome> {
    const { keys, args } = plan.encode();
    const reply = await this.redis.weftCommit(keys.length, keys.concat(args));
    const [status, key = '', field = ''] = reply;
    if (status === 'ok') return { status: 'ok' };
    // A field that had to be new and exists now: another transaction wrote it; running
    // again, this one finds it and decides anew.
    return { status: 'conflict', key, field };
  }

  private async nested<T>(frame: TxFrame, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const mark = frame.tx.mark();
    try {
      return await fn(this.txFor(frame));
    } catch (error) {
      if (frame.active) {
        frame.tx.rollbackTo(mark);
        await this.compensate(frame.tx, mark);
      }
      throw error;
    }
  }

  /** The `tx` handed to a callback: runs operations on its attempt while it is open. */
  private txFor(frame: TxFrame): StoreTx {
    return redisStoreTx(<T>(op: (tx: RedisTx) => Promise<T> | T): Promise<T> => {
      if (!frame.active) {
        return Promise.reject(
          new StoreError(
            'this transaction has already ended; use the tx only inside its callback',
            {
              code: 'TX_ENDED',
            },
          ),
        );
      }
      return this.run(op, frame.tx);
    });
  }

  private async subscribe(notice: Notice, listener: () => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const key = noticeKey(notice);
    const off = this.hub.add(key, listener);
    const count = (this.listening.get(key) ?? 0) + 1;
    this.listening.set(key, count);
    let channels: string[] = [];
    try {
      channels = await this.channels(notice, key);
      if (count === 1) {
        await this.listen(channels, true);
        // Heard from now on: claims may remember what they saw at the stream's heads.
        if (notice.kind === 'stream') this.dueHeads?.listening(notice.name, true);
      }
    } catch (error) {
      off();
      this.forget(key);
      throw asStoreError(error, this.url);
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      off();
      if (this.forget(key)) {
        if (notice.kind === 'stream') this.dueHeads?.listening(notice.name, false);
        if (this.subscriber && !this.closed) await this.listen(channels, false).catch(() => {});
      }
    };
  }

  /**
   * The channels a notice comes on: one, on one server; on a cluster, the sharded channel
   * of every partition for a stream (its messages are in all of them), of the job's
   * partition for a job.
   */
  private async channels(notice: Notice, key: string): Promise<string[]> {
    if (!this.cluster) return [CHANNEL_PREFIX + key];
    if (notice.kind === 'job') {
      return [partitionKeys.shardedNotice(await this.partitions.of(this.redis, notice.id), key)];
    }
    return this.partitions.all().map((p) => partitionKeys.shardedNotice(p, key));
  }

  /** Subscribes (or unsubscribes) the notice connection to channels. */
  private async listen(channels: string[], on: boolean): Promise<void> {
    const subscriber = await this.subscriberConnection();
    if (!this.cluster) {
      await (on ? subscriber.subscribe(...channels) : subscriber.unsubscribe(...channels));
      return;
    }
    // A sharded subscription names channels of one slot: one call per channel.
    await Promise.all(
      channels.map((c) => (on ? subscriber.ssubscribe(c) : subscriber.sunsubscribe(c))),
    );
  }

  /** One listener of `key` fewer; true when it had the last. */
  private forget(key: string): boolean {
    const left = (this.listening.get(key) ?? 1) - 1;
    if (left > 0) {
      this.listening.set(key, left);
      return false;
    }
    this.listening.delete(key);
    return true;
  }

  /** A notice heard (of `partition`, on a cluster): its listeners, and the stream's heads. */
  private heard(key: string, partition?: number): void {
    if (key.startsWith('stream:')) this.dueHeads?.touch(key.slice('stream:'.length), partition);
    this.hub.publish([key]);
  }

  /** The connection that listens for notices, opened on first use. */
  private async subscriberConnection(): Promise<RedisConnection> {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate() as RedisConnection;
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string) => {
      if (channel.startsWith(CHANNEL_PREFIX)) this.heard(channel.slice(CHANNEL_PREFIX.length));
    });
    // On a cluster: `weft:{p<N>}:n:<key>`, heard from the node serving partition N.
    subscriber.on('smessage', (channel: string) => {
      const sharded = /\{p(\d+)\}:n:/.exec(channel);
      if (sharded) this.heard(channel.slice(sharded.index + sharded[0].length), Number(sharded[1]));
    });
    // Notices published while it was away are lost: every stream head may have moved.
    subscriber.on('ready', () => this.dueHeads?.touchAll());
    this.subscriber = subscriber;
    return subscriber;
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    const frame = txContext.getStore();
    if (frame?.owner === this && frame.active) {
      throw new StoreError('cannot close the store from inside one of its transactions', {
        code: 'STORE_CLOSED',
      });
    }
    this.closed = true;
    clearInterval(this.sweepTimer);
    await this.sweeping;
    this.hub.clear();
    this.listening.clear();
    await Promise.all([quit(this.redis), this.subscriber && quit(this.subscriber)]);
  }

  /** One sweep for split commits left half done, unless one runs (a failure waits for the next). */
  private sweep(): void {
    if (this.sweeping || this.closed || !this.split) return;
    this.sweeping = this.split
      .sweep()
      .catch(() => {})
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the store is closed', { code: 'STORE_CLOSED' });
  }

  /** For messages: where this store is. */
  toString(): string {
    return `RedisStore(${this.url.redacted})`;
  }
}
