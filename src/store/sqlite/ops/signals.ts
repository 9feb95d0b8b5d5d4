/**
 * SQLite signals: waiters and the signal buffer (Zenaton's buffer: a signal that comes
 * before its waiter is kept, for `ttlMs`, default 7 days, and handed to the waiter when
 * it registers). Expired buffered signals are never delivered and are pruned as signals
 * come and go.
 */
import type { Json, NewMessage, NewWaiter, SignalOutcome } from '../../records.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';
import type { SqliteStreams } from './streams.js';

/** How long a signal with no waiter is kept when the caller does not say: 7 days. */
export const DEFAULT_SIGNAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

interface WaiterRow {
  key: string;
  stream: string;
  message_job: string | null;
  payload: string;
  available_at: number | null;
}

/** The waiter's payload with the signal's data added as `signal` (wrapped when not an object). */
export function withSignal(payload: Json, data: Json): Json {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    return { ...payload, signal: data };
  }
  return { payload, signal: data };
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
      const payload = withSignal(waiter.message.payload, fromJson(buffered.data));
      return { status: 'delivered', messageId: this.streams.appendOne(waiter.message, payload) };
    }
    const m = waiter.message;
    this.st('putWaiter').run(
      waiter.key,
      waiter.job ?? null,
      m.stream,
      m.job ?? null,
      toJson(m.payload),
      m.availableAt ?? null,
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
      const message: NewMessage = {
        stream: row.stream,
        job: row.message_job,
        payload: null,
        ...(row.available_at === null ? {} : { availableAt: row.available_at }),
      };
      const payload = withSignal(fromJson(row.payload), data);
      return { status: 'delivered', messageId: this.streams.appendOne(message, payload) };
    }
    this.st('prune').run(now);
    const ttl = Math.max(0, options.ttlMs ?? DEFAULT_SIGNAL_TTL_MS);
    this.st('buffer').run(key, toJson(data), now, now + ttl);
    return { status: 'buffered' };
  }
}
