/**
 * PostgreSQL dead letters: messages a claim or `reclaimExpired` moved aside after
 * `maxDeliveries` (see streams.ts), listed oldest first and requeued one statement each —
 * the dead letter is deleted and appended to its stream as a new message with its
 * delivery count reset, sending the stream's notice.
 */
import type { DeadLetter, Json } from '../../records.js';
import { type Db, sql, toRowId } from './context.js';

interface DeadLetterRow {
  id: number;
  stream: string;
  job: string | null;
  payload: Json;
  deliveries: number;
  reason: string;
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
    createdAt: row.created_at,
    deadAt: row.dead_at,
  };
}

const DEAD_ONE = sql(
  'dead_list',
  `SELECT id, stream, job, payload, deliveries, reason, created_at, dead_at
   FROM weft_dead_letters WHERE stream = $1 ORDER BY id LIMIT $2`,
);
const DEAD_ALL = sql(
  'dead_list_all',
  `SELECT id, stream, job, payload, deliveries, reason, created_at, dead_at
   FROM weft_dead_letters ORDER BY id LIMIT $1`,
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
  async listDeadLetters(db: Db, stream?: string, limit = 100): Promise<DeadLetter[]> {
    const rows =
      stream === undefined
        ? await db.rows<DeadLetterRow>(DEAD_ALL, [Math.max(0, Math.floor(limit))])
        : await db.rows<DeadLetterRow>(DEAD_ONE, [stream, Math.max(0, Math.floor(limit))]);
    return rows.map(toDeadLetter);
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
