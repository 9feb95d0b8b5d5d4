/**
 * SQLite signals: the waiter and signal-buffer tables behind the rules of
 * {@link ../../signal-delivery.ts}. Expired buffered signals are never delivered and are
 * pruned as signals come and go.
 */
import type { Json, NewWaiter, SignalOutcome } from '../../records.js';
import {
  type StoredWaiter,
  signalExpiry,
  signalMessage,
  storedWaiter,
  waiterMessage,
} from '../../signal-delivery.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';
import type { SqliteStreams } from './streams.js';

interface WaiterRow {
  key: string;
  job: string | null;
  stream: string;
  message_job: string | null;
  payload: string;
  available_at: number | null;
}

function toWaiter(row: WaiterRow): StoredWaiter {
  return {
    key: row.key,
    job: row.job,
    stream: row.stream,
    messageJob: row.message_job,
    payload: fromJson(row.payload),
    availableAt: row.available_at,
  };
}

/** Signal operations on one connection. */
export class SqliteSignals {
  private readonly s: Record<string, Statement>;

  constructor(
    private readonly ctx: OpsContext,
    private readonly streams: SqliteStreams,
  ) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      putWaiter: p(`INSERT INTO weft_waiters
          (key, job, stream, message_job, payload, available_at, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET job = excluded.job, stream = excluded.stream,
          message_job = excluded.message_job, payload = excluded.payload,
          available_at = excluded.available_at, created_at = excluded.created_at`),
      getWaiter: p('SELECT * FROM weft_waiters WHERE key = ?'),
      deleteWaiter: p('DELETE FROM weft_waiters WHERE key = ?'),
      buffer: p(
        'INSERT INTO weft_signal_buffer (key, data, created_at, expires_at) VALUES (?, ?, ?, ?)',
      ),
      oldest: p(`SELECT id, data FROM weft_signal_buffer WHERE key = ? AND expires_at > ?
        ORDER BY id LIMIT 1`),
      take: p('DELETE FROM weft_signal_buffer WHERE id = ?'),
      prune: p('DELETE FROM weft_signal_buffer WHERE expires_at <= ?'),
    };
  }

  private st(name: string): Statement {
    return this.s[name] as Statement;
  }

  /** Registers a waiter, or hands it the oldest live buffered signal for its key at once. */
  registerWaiter(waiter: NewWaiter): SignalOutcome {
    const now = this.ctx.clock.now();
    this.st('prune').run(now);
    const buffered = this.st('oldest').get(waiter.key, now) as
      | { id: number; data: string }
      | undefined;
    if (buffered) {
      this.st('take').run(buffered.id);
      const message = signalMessage(waiter.message, fromJson(buffered.data));
      return { status: 'delivered', messageId: this.streams.appendOne(message) };
    }
    const w = storedWaiter(waiter);
    this.st('putWaiter').run(
      w.key,
      w.job,
      w.stream,
      w.messageJob,
      toJson(w.payload),
      w.availableAt,
      now,
    );
    return { status: 'buffered' };
  }

  /** Removes a waiter. */
  removeWaiter(key: string): boolean {
    return this.st('deleteWaiter').run(key).changes === 1;
  }

  /** Delivers a signal to its waiter, or buffers it for `ttlMs`. */
  deliverSignal(key: string, data: Json, options: { ttlMs?: number } = {}): SignalOutcome {
    const now = this.ctx.clock.now();
    const row = this.st('getWaiter').get(key) as WaiterRow | undefined;
    if (row) {
      this.st('deleteWaiter').run(key);
      const message = signalMessage(waiterMessage(toWaiter(row)), data);
      return { status: 'delivered', messageId: this.streams.appendOne(message) };
    }
    this.st('prune').run(now);
    this.st('buffer').run(key, toJson(data), now, signalExpiry(now, options.ttlMs));
    return { status: 'buffered' };
  }
}
