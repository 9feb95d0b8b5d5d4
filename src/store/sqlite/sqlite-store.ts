/**
 * The embedded store: SQLite through better-sqlite3, in WAL mode. One connection per
 * store; an async mutex lets one transaction (or direct call) use it at a time, and each
 * write runs in `BEGIN IMMEDIATE … COMMIT`, so SQLite's single writer lock makes every
 * operation atomic across processes too.
 *
 * Nesting: inside `transaction(fn)`, calls made on the Store itself (not on `tx`) join the
 * open transaction, and a nested `transaction` runs as a SAVEPOINT inside it (rolled back
 * alone when its callback throws). Nested transactions must not run concurrently with
 * each other inside one callback.
 *
 * better-sqlite3 answers at once, so a chain of calls would run on microtasks alone and
 * starve the event loop (signals, timers, heartbeats): every call, and every transaction,
 * returns through a macrotask when {@link yieldIfDue} says one is due (see
 * yield-point.ts), and large set-based writes inside a transaction run in chunks with a
 * yield point between them (`BoundStoreTx`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Clock, SystemClock } from '../../core/clock.js';
import { StoreError } from '../../core/errors.js';
import type { MigrationReport } from '../migration-report.js';
import { NoticeHub, noticeKey } from '../notices.js';
import type { Notice, Store, StoreTx } from '../store.js';
import type { StoreOptions } from '../store-options.js';
import type { StoreUrl } from '../url.js';
import { yieldIfDue } from '../yield-point.js';
import { type Db, isBusy, openConnection, retryWhileBusy, sqliteCode } from './connection.js';
import { DataVersionPoller } from './data-version-poller.js';
import { migrate } from './migrate.js';
import { AsyncMutex } from './mutex.js';
import type { Statement } from './ops/context.js';
import { BoundStoreTx, createSqliteOps, type Invoke, type SqliteOps } from './sqlite-ops.js';

/** The open transaction a callback runs in. */
interface TxFrame {
  owner: SqliteStore;
  active: boolean;
  savepoints: number;
}

const txContext = new AsyncLocalStorage<TxFrame>();

/** Default interval of the cross-process notice poll, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 20;

/** Opens (creating when absent) and migrates the SQLite store at `url`. */
export async function openSqliteStore(
  url: Extract<StoreUrl, { dialect: 'sqlite' }>,
  options: StoreOptions = {},
): Promise<Store> {
  const clock = options.clock ?? new SystemClock();
  const db = openConnection(url.path, url.memory, options.synchronous, url.createDirectory);
  let migration: MigrationReport;
  try {
    migration = await migrate(db, url.path, clock.now(), options.migrate ?? true);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStore(db, url, clock, options, migration).store;
}

/** One connection's store. */
class SqliteStore {
  readonly store: Store;
  private readonly mutex = new AsyncMutex();
  private readonly hub = new NoticeHub();
  private readonly pending = new Set<string>();
  private readonly ops: SqliteOps;
  private readonly poller: DataVersionPoller | undefined;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  /** Set when close() is called: new calls are refused; calls already queued still run. */
  private closing = false;
  /** Set once the connection is closed. */
  private closed = false;
  private closedPromise: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    url: Extract<StoreUrl, { dialect: 'sqlite' }>,
    clock: Clock,
    options: StoreOptions,
    migration: MigrationReport,
  ) {
    this.ops = createSqliteOps({ db, clock, notify: (key) => this.pending.add(key) });
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.poller = url.memory
      ? undefined
      : new DataVersionPoller(
          db,
          options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
          () => !this.mutex.locked && !this.closing,
          () => this.hub.wakeAll(),
        );
    const direct: Invoke = (write, op) => this.direct(write, op);
    this.store = Object.assign(new BoundStoreTx(this.ops, direct), {
      dialect: 'sqlite' as const,
      url: `sqlite:${url.path}`,
      migration,
      transaction: <T>(fn: (tx: StoreTx) => Promise<T>) => this.transaction(fn),
      subscribe: (notice: Notice, listener: () => void) => this.subscribe(notice, listener),
      close: () => this.close(),
    });
  }

  /** A direct call on the Store: its own transaction, or the caller's open one. */
  private async direct<T>(write: boolean, op: () => T): Promise<T> {
    const frame = txContext.getStore();
    if (frame?.owner === this && frame.active) {
      const result = op();
      await yieldIfDue();
      return result;
    }
    this.assertOpen();
    const release = this.mutex.tryAcquire() ?? (await this.mutex.acquire());
    let result: T;
    try {
      this.assertConnected();
      result = await retryWhileBusy(() => this.runOnce(write, op), 'write');
    } catch (error) {
      throw asStoreError(error);
    } finally {
      release();
    }
    await yieldIfDue();
    return result;
  }

  private runOnce<T>(write: boolean, op: () => T): T {
    if (!write) return op();
    this.begin.run();
    let result: T;
    try {
      result = op();
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      this.pending.clear();
      throw error;
    }
    this.flushNotices();
    return result;
  }

  private async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const outer = txContext.getStore();
    if (outer?.owner === this && outer.active) return this.nested(outer, fn);
    this.assertOpen();
    const release = this.mutex.tryAcquire() ?? (await this.mutex.acquire());
    try {
      this.assertConnected();
      await this.beginWrite();
      const frame: TxFrame = { owner: this, active: true, savepoints: 0 };
      let result: T;
      try {
        result = await txContext.run(frame, () => fn(this.txFor(frame)));
        frame.active = false;
        this.commit.run();
      } catch (error) {
        frame.active = false;
        if (this.db.inTransaction) this.rollback.run();
        this.pending.clear();
        throw asStoreError(error);
      }
      this.flushNotices();
      return result;
    } finally {
      release();
      // A chain of transactions comes back to the event loop now and then.
      await yieldIfDue();
    }
  }

  /** BEGIN IMMEDIATE: synchronously when the lock is free, else waiting on the event loop. */
  private beginWrite(): Promise<unknown> | undefined {
    try {
      this.begin.run();
      return undefined;
    } catch (error) {
      if (!isBusy(error)) throw asStoreError(error);
    }
    return retryWhileBusy(() => this.begin.run(), 'begin a transaction').catch((error) => {
      throw asStoreError(error);
    });
  }

  private async nested<T>(frame: TxFrame, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const name = `weft_savepoint_${++frame.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this.txFor(frame));
      if (frame.active) this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (frame.active && this.db.inTransaction) {
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
      }
      throw error;
    }
  }

  /**
   * The `tx` handed to a callback: runs operations inline while its transaction is open,
   * each returning through a macrotask when one is due (the transaction stays open and
   * this connection's mutex held meanwhile, so nothing else writes into it).
   */
  private txFor(frame: TxFrame): StoreTx {
    const invoke = <T>(_write: boolean, op: () => T): Promise<T> => {
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
      let result: T;
      try {
        result = op();
      } catch (error) {
        return Promise.reject(asStoreError(error));
      }
      const turn = yieldIfDue();
      return turn ? turn.then(() => result) : Promise.resolve(result);
    };
    return new BoundStoreTx(this.ops, invoke, true);
  }

  private flushNotices(): void {
    if (this.pending.size === 0) return;
    const keys = [...this.pending];
    this.pending.clear();
    this.hub.publish(keys);
  }

  private async subscribe(notice: Notice, listener: () => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const off = this.hub.add(noticeKey(notice), listener, (count) => this.poller?.update(count));
    return async () => off();
  }

  private close(): Promise<void> {
    const frame = txContext.getStore();
    if (frame?.owner === this && frame.active) {
      return Promise.reject(
        new StoreError('cannot close the store from inside one of its transactions', {
          code: 'STORE_CLOSED',
        }),
      );
    }
    this.closedPromise ??= this.shutDown();
    return this.closedPromise;
  }

  /** Refuses new calls, lets queued ones finish, then closes the connection. */
  private async shutDown(): Promise<void> {
    this.closing = true;
    this.poller?.stop();
    this.hub.clear();
    const release = await this.mutex.acquire();
    try {
      this.closed = true;
      this.db.close();
    } finally {
      release();
    }
  }

  private assertOpen(): void {
    if (this.closing) throw new StoreError('the store is closed', { code: 'STORE_CLOSED' });
  }

  private assertConnected(): void {
    if (this.closed) throw new StoreError('the store is closed', { code: 'STORE_CLOSED' });
  }
}

/** Wraps a raw SQLite failure in a StoreError; typed weft errors pass through. */
function asStoreError(error: unknown): unknown {
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError(`SQLite: ${message} (${code})`, {
    cause: error,
    code: isBusy(error) ? 'STORE_BUSY' : 'STORE_SQL',
  });
}
