/**
 * PostgreSQL dead letters: messages a claim or `reclaimExpired` moved aside after
 * `maxDeliveries` (see streams.ts), listed oldest first and requeued one statement each —
 * the dead letter is deleted and appended to its stream as a new message with its
 * delivery count reset, sending the stream's notice.
 */
import type { DeadLetter, ErrorRecord, Json } from '../../records.js';
import { countOption, DEFAULT_PAGE } from '../../stream-options.js';
import { type Db, sql, toRowId } from './context.js';

interface DeadLetterRow {
  id: number;
  stream: string;
  job: string | null;
  payload: Json;
  deliveries: number;
  reason: string;
  last_error: ErrorRecord | null;
  created_at: number;
  dead_at: number;
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: String(row.id),
    stream: row.stream,
    payload: row.payload,
    job: row.job,
    deliveries: row.deliveries,
    reason: row.reason,
    lastError: row.last_error,
    createdAt: row.created_at,
    deadAt: row.dead_at,
  };
}

const DEAD_COLUMNS =
  'id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at';
const DEAD_ONE = sql(
  'dead_list',
  `SELECT ${DEAD_COLUMNS} FROM weft_dead_letters WHERE stream = $1 ORDER BY id LIMIT $2`,
);
const DEAD_ALL = sql(
  'dead_list_all',
  `SELECT ${DEAD_COLUMNS} FROM weft_dead_letters ORDER BY id LIMIT $1`,
);
const DEAD_GET = sql('dead_get', `SELECT ${DEAD_COLUMNS} FROM weft_dead_letters WHERE id = $1`);
// $1 id, $2 stream, $3 consumer, $4 reason, $5 now, $6 last error (null: keep the message's).
const DEAD_HELD = sql(
  'dead_held',
  `WITH m AS (
     DELETE FROM weft_messages WHERE id = $1 AND stream = $2 AND consumer = $3
     RETURNING id, stream, job, payload, deliveries, last_error, created_at
   )
   INSERT INTO weft_dead_letters
     (id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at)
   SELECT id, stream, job, payload, deliveries, $4, COALESCE($6::json, last_error), created_at, $5
   FROM m
   RETURNING ${DEAD_COLUMNS}`,
);
const REQUEUE = sql(
  'dead_requeue',
  `WITH d AS (DELETE FROM weft_dead_letters WHERE id = $1 RETURNING stream, job, payload)
   INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
   SELECT stream, job, payload, 0, $2, $2 FROM d
   RETURNING id, stream, pg_notify('weft', 's:' || stream) IS NULL AS notified`,
);

/** Dead-letter operations. */
export const deadLetters = {
  /** Dead letters in id order, of one stream or all. */
  async listDeadLetters(db: Db, stream?: string, limit?: number): Promise<DeadLetter[]> {
    const page = countOption(limit, DEFAULT_PAGE);
    const rows =
      stream === undefined
        ? await db.rows<DeadLetterRow>(DEAD_ALL, [page])
        : await db.rows<DeadLetterRow>(DEAD_ONE, [stream, page]);
    return rows.map(toDeadLetter);
  },

  /** One dead letter, by id. */
  async getDeadLetter(db: Db, id: string): Promise<DeadLetter | undefined> {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const [row] = await db.rows<DeadLetterRow>(DEAD_GET, [rowId]);
    return row ? toDeadLetter(row) : undefined;
  },

  /** Moves a message `consumer` holds to the dead letters now; undefined when it no longer holds it. */
  async deadLetter(
    db: Db,
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ): Promise<DeadLetter | undefined> {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const [row] = await db.rows<DeadLetterRow>(DEAD_HELD, [
      rowId,
      stream,
      consumer,
      reason,
      db.clock.now(),
      lastError === undefined ? null : JSON.stringify(lastError),
    ]);
    return row ? toDeadLetter(row) : undefined;
  },

  /** Moves a dead letter back to its stream as a new message; returns its new id. */
  async requeueDeadLetter(db: Db, id: string): Promise<string | undefined> {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const [row] = await db.rows<{ id: number; stream: string }>(REQUEUE, [rowId, db.clock.now()]);
    if (!row) return undefined;
    db.notify(`stream:${row.stream}`);
    return String(row.id);
  },
};
