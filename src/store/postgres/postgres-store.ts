/**
 * The PostgreSQL store: a `pg` pool (`?pool=N`, else `poolSize`, else 10 connections) for
 * operations and one LISTEN connection for notices. Any number of processes on any number
 * of machines may share one database: claims lock rows with `FOR UPDATE SKIP LOCKED`,
 * counters add atomically in the database, and every time the store writes comes from its
 * injected clock, passed as a parameter (never the server's `now()`).
 *
 * Transactions: `transaction(fn)` checks out one client and runs `BEGIN … COMMIT` (READ
 * COMMITTED) on it; every `tx` call runs on that client. Inside `fn`, calls made on the
 * Store itself join the open transaction, and a nested `transaction` runs as a SAVEPOINT.
 * The connections pipeline (connection.ts): BEGIN goes out with the first statement, and
 * the history lines a transaction writes are kept and go out in one statement right
 * before COMMIT, in the same round trip (so a read inside the transaction does not see
 * them yet); a line that could not be written fails the commit and nothing is kept.
 * A transaction PostgreSQL aborts for a deadlock or a serialization failure is not
 * re-run (`fn` is the caller's code): it fails with `StoreError` `STORE_CONFLICT`, which
 * says it changed nothing and may be retried. A direct call's single statement is retried
 * a few times on those failures, since it is weft's own and rolled back whole.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { type Clock, SystemClock } from '../../core/clock.js';
import { StoreError } from '../../core/errors.js';
import { failureOf } from '../issued.js';
import type { MigrationReport } from '../migration-report.js';
import { NoticeHub, noticeKey } from '../notices.js';
import type { NewHistoryEntry, Notice, Store, StoreTx } from '../store.js';
import type { StoreOptions } from '../store-options.js';
import {
  asStoreError,
  connectError,
  createPool,
  type PostgresUrl,
  RETRYABLE_STATES,
  sqlState,
} from './connection.js';
import { NoticeListener } from './listener.js';
import { migrate } from './migrate.js';
import { createDb, type Db, type Queryable } from './ops/context.js';
import { type HistoryValues, history, historyValues } from './ops/history.js';
import { type Invoke, PostgresStoreTx } from './postgres-ops.js';

/** The default number of pooled connections. */
export const DEFAULT_POOL_SIZE = 10;

/** How often a direct call's statement is tried on a deadlock or serialization failure. */
const STATEMENT_TRIES = 3;

/** How long the LISTEN connection stays open after the last subscriber left, in ms. */
const LISTENER_LINGER_MS = 2_000;

/** The open transaction a callback runs in. */
interface TxFrame {
  owner: PostgresStore;
  client: pg.PoolClient;
  db: Db;
  notices: Set<string>;
  active: boolean;
  savepoints: number;
  /** History lines written with COMMIT (see {@link PostgresStore.commit}). */
  history: HistoryValues[];
}

const txContext = new AsyncLocalStorage<TxFrame>();

/** Opens the PostgreSQL store at `url` and applies migrations. */
export async function openPostgresStore(
  url: PostgresUrl,
  options: StoreOptions = {},
): Promise<Store> {
  const clock = options.clock ?? new SystemClock();
  const pool = createPool(url, url.poolSize ?? options.poolSize ?? DEFAULT_POOL_SIZE);
  const pids = new Set<number>();
  pool.on('connect', (client) => {
    const pid = (client as pg.PoolClient & { processID: number | null }).processID;
    if (pid !== null) pids.add(pid);
  });
  pool.on('remove', (client) => {
    pids.delete((client as pg.PoolClient & { processID: number }).processID);
  });
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => {});
    throw connectError(error, url);
  }
  // A connection the server ends meanwhile (a restart) fails the migration's statements;
  // its 'error' event is heard by the listener every pooled client has (connection.ts).
  let migration: MigrationReport;
  try {
    migration = await migrate(client, url.redacted, options.migrate ?? true);
    client.release();
  } catch (error) {
    client.release(true);
    await pool.end().catch(() => {});
    throw asStoreError(error, url);
  }
  return new PostgresStore(pool, url, clock, pids, migration).store;
}

/** One pool's store. */
class PostgresStore {
  readonly store: Store;
  private readonly hub = new NoticeHub();
  private readonly listener: NoticeListener;
  private readonly direct: PostgresStoreTx;
  private readonly wrap: (error: unknown) => unknown;
  private readonly clock: Clock;
  private readonly pooled: Queryable;
  private lingerTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: PostgresUrl,
    clock: Clock,
    pids: ReadonlySet<number>,
    migration: MigrationReport,
  ) {
    this.wrap = (error) => asStoreError(error, url);
    // Times go to bigint columns: whole milliseconds, even from a clock that is not.
    this.clock = { now: () => Math.round(clock.now()), sleep: (t, s) => clock.sleep(t, s) };
    this.pooled = this.retrying();
    this.listener = new NoticeListener(url, this.hub, pids);
    const invoke: Invoke = (atomic, op) => this.invokeDirect(atomic, op);
    this.direct = new PostgresStoreTx(invoke, (entries) => {
      const frame = txContext.getStore();
      return frame?.owner === this && this.defer(frame, entries);
    });
    this.store = Object.assign(this.direct, {
      dialect: 'postgres' as const,
      url: url.redacted,
      migration,
      transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => this.transaction(fn),
      subscribe: (notice: Notice, listener: () => void) => this.subscribe(notice, listener),
      close: () => this.close(),
    });
  }

  /** A direct call on the Store: the caller's open transaction, or the pool. */
  private async invokeDirect<T>(atomic: boolean, op: (db: Db) => Promise<T>): Promise<T> {
    const frame = txContext.getStore();
    if (frame?.owner === this && frame.active) return op(frame.db);
    this.assertOpen();
    if (atomic) return this.transaction(() => op((txContext.getStore() as TxFrame).db));
    const notices = new Set<string>();
    const result = await op(createDb(this.pooled, this.clock, notices, this.wrap));
    if (notices.size > 0) this.hub.publish(notices);
    return result;
  }

  /** The pool, with each statement retried on a deadlock or serialization failure. */
  private retrying(): Queryable {
    const pool = this.pool;
    return {
      async query(config) {
        for (let attempt = 1; ; attempt++) {
          try {
            return await pool.query(config);
          } catch (error) {
            const state = sqlState(error);
            if (attempt >= STATEMENT_TRIES || !state || !RETRYABLE_STATES.has(state)) throw error;
          }
        }
      },
    } as Queryable;
  }

  private async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const outer = txContext.getStore();
    if (outer?.owner === this && outer.active) return this.nested(outer, fn);
    this.assertOpen();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.wrap(error);
    }
    // A connection lost while `fn` awaits something else surfaces on the next statement
    // (its 'error' event meanwhile is heard by every pooled client's listener).
    const notices = new Set<string>();
    const frame: TxFrame = {
      owner: this,
      client,
      db: createDb(client as Queryable, this.clock, notices, this.wrap),
      notices,
      active: true,
      savepoints: 0,
      history: [],
    };
    let destroy: Error | undefined;
    try {
      // BEGIN is not awaited on its own: the transaction's first statement goes out behind
      // it (the connection pipelines), and it is awaited before COMMIT.
      const begun = failureOf(client.query('BEGIN')).then((error) => {
        if (error === undefined) return undefined;
        destroy = error as Error;
        return this.wrap(error);
      });
      try {
        const result = await txContext.run(frame, () => fn(this.txFor(frame)));
        const failed = await begun;
        if (failed) throw failed;
        frame.active = false;
        await this.commit(frame);
        if (notices.size > 0) this.hub.publish(notices);
        return result;
      } catch (error) {
        frame.active = false;
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          destroy = rollbackError as Error;
        });
        // A BEGIN that failed is the cause of whatever failed after it.
        throw (await begun) ?? error;
      }
    } finally {
      client.release(destroy);
    }
  }

  /** Keeps history lines for COMMIT; false when the transaction has ended. */
  private defer(frame: TxFrame, entries: NewHistoryEntry[]): boolean {
    if (!frame.active) return false;
    const now = this.clock.now();
    // Made into values now, so a change that is not JSON fails this call, not the COMMIT.
    const rows = entries.map((entry) => historyValues(entry, now));
    for (const row of rows) frame.history.push(row);
    return true;
  }

  /**
   * Commits: the history lines the transaction wrote go out in one statement, behind the
   * lock of their jobs' histories and with COMMIT right behind them, in one round trip. A
   * statement that fails there (or anything still in flight) makes PostgreSQL answer
   * COMMIT with ROLLBACK; the statement's error is thrown.
   */
  private async commit(frame: TxFrame): Promise<void> {
    const lines = frame.history.splice(0);
    // The jobs' history locks, the lines, COMMIT: three statements, one round trip.
    const locked = lines.length ? failureOf(history.lockHistories(frame.db, lines)) : undefined;
    const written = lines.length ? failureOf(history.insertHistory(frame.db, lines)) : undefined;
    let done: pg.QueryResult;
    try {
      done = await frame.client.query('COMMIT');
    } catch (error) {
      throw this.wrap(error);
    }
    const failed = (await locked) ?? (await written);
    if (failed) throw failed;
    if (done.command === 'ROLLBACK') {
      throw new StoreError(
        'PostgreSQL rolled the transaction back at COMMIT: one of its statements had failed; nothing it wrote was kept',
        { code: 'STORE_ROLLED_BACK' },
      );
    }
  }

  private async nested<T>(frame: TxFrame, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const name = `weft_savepoint_${++frame.savepoints}`;
    const lines = frame.history.length;
    await frame.client.query(`SAVEPOINT ${name}`).catch((error: unknown) => {
      throw this.wrap(error);
    });
    try {
      const result = await fn(this.txFor(frame));
      if (frame.active) await frame.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      if (frame.active) {
        await frame.client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
        await frame.client.query(`RELEASE SAVEPOINT ${name}`).catch(() => {});
        // Lines written inside the savepoint go with it.
        frame.history.length = lines;
      }
      throw error;
    }
  }

  /** The `tx` handed to a callback: runs operations on its client while it is open. */
  private txFor(frame: TxFrame): StoreTx {
    const defer = (entries: NewHistoryEntry[]) => this.defer(frame, entries);
    return new PostgresStoreTx(<T>(_atomic: boolean, op: (db: Db) => Promise<T>): Promise<T> => {
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
      return op(frame.db);
    }, defer);
  }

  private async subscribe(notice: Notice, listener: () => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const off = this.hub.add(noticeKey(notice), listener, (count) => this.listenersChanged(count));
    try {
      await this.listener.ready();
    } catch (error) {
      off();
      throw this.wrap(error);
    }
    return async () => off();
  }

  /** Keeps the LISTEN connection while anyone listens (and briefly after). */
  private listenersChanged(count: number): void {
    if (count > 0) {
      if (this.lingerTimer) clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
      return;
    }
    this.lingerTimer ??= setTimeout(() => {
      this.lingerTimer = undefined;
      if (this.hub.size === 0) void this.listener.idle();
    }, LISTENER_LINGER_MS);
    this.lingerTimer.unref();
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
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.hub.clear();
    await this.listener.close();
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('the store is closed', { code: 'STORE_CLOSED' });
  }

  /** For messages: where this store is. */
  toString(): string {
    return `PostgresStore(${this.url.redacted})`;
  }
}
