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
import { asStoreError, connect, type RedisConnection, type RedisUrl } from './connection.js';
import { durabilityWarning } from './durability.js';
import { globalKeys, LAYOUT_VERSION, partitionKeys } from './keys.js';
import { redisStoreTx } from './redis-ops.js';
import { type CommitOutcome, RedisTx } from './redis-tx.js';

/** How many times a transaction runs before a conflict is the caller's. */
export const TRANSACTION_TRIES = 50;

/** The open transaction a callback runs in. */
interface TxFrame {
  owner: RedisStore;
  tx: RedisTx;
  active: boolean;
}

const txContext = new AsyncLocalStorage<TxFrame>();

/** The notice channel prefix (keys.ts `notice`). */
const CHANNEL_PREFIX = partitionKeys.notice('');

/** Opens the Redis store at `url` and records (or checks) its layout version. */
export async function openRedisStore(url: RedisUrl, options: StoreOptions = {}): Promise<Store> {
  const clock = options.clock ?? new SystemClock();
  const redis = await connect(url);
  let migration: MigrationReport;
  try {
    // Both reads in one round trip (the connection pipelines what is sent together).
    const [found, warning] = await Promise.all([
      layout(redis, url, options.migrate ?? true),
      durabilityWarning(redis, url.redacted),
    ]);
    migration = found;
    if (warning) (options.onWarning ?? ((m: string) => process.stderr.write(`${m}\n`)))(warning);
  } catch (error) {
    redis.disconnect();
    throw asStoreError(error, url);
  }
  return new RedisStore(redis, url, clock, migration).store;
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

  constructor(
    private readonly redis: RedisConnection,
    private readonly url: RedisUrl,
    clock: Clock,
    migration: MigrationReport,
  ) {
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
    for (let attempt = 1; ; attempt++) {
      this.assertOpen();
      const frame: TxFrame = { owner: this, tx: new RedisTx(this.redis, this.clock), active: true };
      let result: T;
      let outcome: CommitOutcome;
      try {
        result = await txContext.run(frame, () => fn(this.txFor(frame)));
        frame.active = false;
        outcome = await this.commit(frame.tx);
      } catch (error) {
        frame.active = false;
        await this.compensate(frame.tx);
        throw error;
      }
      if (outcome.status === 'ok') return result;
      await this.compensate(frame.tx);
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

  /** Runs the commit script (nothing to check or write: nothing to do). */
  private async commit(tx: RedisTx): Promise<CommitOutcome> {
    const plan = tx.plan();
    if (plan.empty) return { status: 'ok' };
    let reply: string[];
    try {
      reply = await this.redis.weftCommit(plan.keys.length, plan.keys.concat(plan.args()));
    } catch (error) {
      throw asStoreError(error, this.url);
    }
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
    try {
      if (count === 1) await (await this.subscriberConnection()).subscribe(CHANNEL_PREFIX + key);
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
      if (this.forget(key) && this.subscriber && !this.closed) {
        await this.subscriber.unsubscribe(CHANNEL_PREFIX + key).catch(() => {});
      }
    };
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

  /** The connection that listens for notices, opened on first use. */
  private async subscriberConnection(): Promise<RedisConnection> {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate() as RedisConnection;
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string) => {
      if (channel.startsWith(CHANNEL_PREFIX)) {
        this.hub.publish([channel.slice(CHANNEL_PREFIX.length)]);
      }
    });
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
    this.hub.clear();
    this.listening.clear();
    await Promise.all([quit(this.redis), this.subscriber && quit(this.subscriber)]);
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the store is closed', { code: 'STORE_CLOSED' });
  }

  /** For messages: where this store is. */
  toString(): string {
    return `RedisStore(${this.url.redacted})`;
  }
}
