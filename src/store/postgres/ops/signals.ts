/**
 * PostgreSQL signals: the waiter and signal-buffer tables behind the rules of
 * {@link ../../signal-delivery.ts}. Registering and delivering take a transaction-level
 * advisory lock on the key first, so a waiter and its signal arriving at once in two
 * processes always meet: one of them sees the other's committed row.
 */
import type { Json, NewWaiter, SignalOutcome } from '../../records.js';
import {
  type StoredWaiter,
  signalExpiry,
  signalMessage,
  storedWaiter,
  waiterMessage,
} from '../../signal-delivery.js';
import { type Db, ms, sql, toJson } from './context.js';
import { streams } from './streams.js';

/** The advisory-lock class of signal keys (the other key is the key's hash). */
const SIGNAL_LOCK_CLASS = 0x77656674; // 'weft'

interface WaiterRow {
  key: string;
  job: string | null;
  stream: string;
  message_job: string | null;
  payload: Json;
  available_at: number | null;
}

function toWaiter(row: WaiterRow): StoredWaiter {
  return {
    key: row.key,
    job: row.job,
    stream: row.stream,
    messageJob: row.message_job,
    payload: row.payload,
    availableAt: row.available_at,
  };
}

const LOCK = sql(
  'signal_lock',
  `SELECT pg_advisory_xact_lock(${SIGNAL_LOCK_CLASS}, hashtext($1)) IS NULL AS locked`,
);
const PUT_WAITER = sql(
  'waiter_put',
  `INSERT INTO weft_waiters (key, job, stream, message_job, payload, available_at, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7)
   ON CONFLICT (key) DO UPDATE SET job = EXCLUDED.job, stream = EXCLUDED.stream,
     message_job = EXCLUDED.message_job, payload = EXCLUDED.payload,
     available_at = EXCLUDED.available_at, created_at = EXCLUDED.created_at`,
);
const TAKE_WAITER = sql(
  'waiter_take',
  `DELETE FROM weft_waiters WHERE key = $1
   RETURNING key, job, stream, message_job, payload, available_at`,
);
const REMOVE_WAITER = sql('waiter_remove', 'DELETE FROM weft_waiters WHERE key = $1');
// Prunes expired signals and takes the oldest live one for the key, in one statement.
const TAKE_SIGNAL = sql(
  'signal_take',
  `WITH pruned AS (
     DELETE FROM weft_signal_buffer WHERE expires_at <= $2
   )
   DELETE FROM weft_signal_buffer WHERE id = (
     SELECT id FROM weft_signal_buffer WHERE key = $1 AND expires_at > $2 ORDER BY id LIMIT 1
   ) RETURNING data`,
);
const BUFFER = sql(
  'signal_buffer',
  `WITH pruned AS (
     DELETE FROM weft_signal_buffer WHERE expires_at <= $3
   )
   INSERT INTO weft_signal_buffer (key, data, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
);

/** Signal operations; each runs inside a transaction (it takes an advisory lock). */
export const signals = {
  /** Registers a waiter, or hands it the oldest live buffered signal for its key at once. */
  async registerWaiter(db: Db, waiter: NewWaiter): Promise<SignalOutcome> {
    const now = db.clock.now();
    await db.rows(LOCK, [waiter.key]);
    const [buffered] = await db.rows<{ data: Json }>(TAKE_SIGNAL, [waiter.key, now]);
    if (buffered) {
      const message = signalMessage(waiter.message, buffered.data);
      return { status: 'delivered', messageId: await streams.appendOne(db, message) };
    }
    const w = storedWaiter(waiter);
    await db.count(PUT_WAITER, [
      w.key,
      w.job,
      w.stream,
      w.messageJob,
      toJson(w.payload),
      w.availableAt === null ? null : ms(w.availableAt),
      now,
    ]);
    return { status: 'buffered' };
  },

  /** Removes a waiter. */
  async removeWaiter(db: Db, key: string): Promise<boolean> {
    return (await db.count(REMOVE_WAITER, [key])) === 1;
  },

  /** Delivers a signal to its waiter, or buffers it for `ttlMs`. */
  async deliverSignal(
    db: Db,
    key: string,
    data: Json,
    options: { ttlMs?: number } = {},
  ): Promise<SignalOutcome> {
    const now = db.clock.now();
    await db.rows(LOCK, [key]);
    const [row] = await db.rows<WaiterRow>(TAKE_WAITER, [key]);
    if (row) {
      const message = signalMessage(waiterMessage(toWaiter(row)), data);
      return { status: 'delivered', messageId: await streams.appendOne(db, message) };
    }
    await db.count(BUFFER, [key, toJson(data), now, ms(signalExpiry(now, options.ttlMs))]);
    return { status: 'buffered' };
  },
};
