/**
 * PostgreSQL timers: durable wake-ups keyed by name. Firing is one statement: it locks
 * the oldest due timers with `FOR UPDATE SKIP LOCKED`, deletes them and appends their
 * messages (and sends their streams' notices), so a timer fires once however many
 * processes fire timers, and none of them waits on another.
 */
import type { FiredTimer, NewTimer } from '../../records.js';
import { countOption, DEFAULT_PAGE } from '../../stream-options.js';
import { type Db, ms, sql, toJson } from './context.js';

const UPSERT = sql(
  'timer_put',
  `INSERT INTO weft_timers (key, at, stream, job, payload, available_at)
   VALUES ($1, $2, $3, $4, $5, $6)
   ON CONFLICT (key) DO UPDATE SET at = EXCLUDED.at, stream = EXCLUDED.stream,
     job = EXCLUDED.job, payload = EXCLUDED.payload, available_at = EXCLUDED.available_at`,
);
const CANCEL = sql('timer_cancel', 'DELETE FROM weft_timers WHERE key = $1');
// $1 due time, $2 max, $3 the clock's now (the messages' creation time).
const FIRE = sql(
  'timer_fire',
  `WITH due AS (
     SELECT key FROM weft_timers WHERE at <= $1 ORDER BY at, key LIMIT $2
     FOR UPDATE SKIP LOCKED
   ), gone AS (
     DELETE FROM weft_timers t USING due WHERE t.key = due.key
     RETURNING t.key, t.at, t.stream, t.job, t.payload, t.available_at
   ), numbered AS (
     SELECT nextval('weft_message_ids') AS id, g.*
     FROM (SELECT * FROM gone ORDER BY at, key) g
   ), ins AS (
     INSERT INTO weft_messages (id, stream, job, payload, deliveries, available_at, created_at)
     SELECT id, stream, job, payload, 0, COALESCE(available_at, $3), $3 FROM numbered
   )
   SELECT key, at, id, stream,
     (SELECT bool_and(pg_notify('weft', 's:' || d.stream) IS NULL)
      FROM (SELECT DISTINCT stream FROM numbered) d) AS notified
   FROM numbered ORDER BY id`,
);
const NEXT = sql('timer_next', 'SELECT min(at) AS at FROM weft_timers');

/** Timer operations. */
export const timers = {
  /** Schedules a timer, replacing one with the same key. */
  async scheduleTimer(db: Db, timer: NewTimer): Promise<void> {
    const m = timer.message;
    await db.count(UPSERT, [
      timer.key,
      ms(timer.at),
      m.stream,
      m.job ?? null,
      toJson(m.payload),
      m.availableAt == null ? null : ms(m.availableAt),
    ]);
  },

  /** Cancels a pending timer. */
  async cancelTimer(db: Db, key: string): Promise<boolean> {
    return (await db.count(CANCEL, [key])) === 1;
  },

  /** Fires up to `max` timers due at `now`, oldest first. */
  async fireDueTimers(db: Db, now: number, max?: number): Promise<FiredTimer[]> {
    const batch = countOption(max, DEFAULT_PAGE);
    if (batch === 0) return [];
    const rows = await db.rows<{ key: string; at: number; id: number; stream: string }>(FIRE, [
      ms(now),
      batch,
      db.clock.now(),
    ]);
    for (const row of rows) db.notify(`stream:${row.stream}`);
    return rows.map((r) => ({ key: r.key, at: r.at, messageId: String(r.id) }));
  },

  /** When the next timer is due. */
  async nextTimerAt(db: Db): Promise<number | undefined> {
    const [row] = await db.rows<{ at: number | null }>(NEXT, []);
    return row?.at ?? undefined;
  },
};
