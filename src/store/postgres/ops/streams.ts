/**
 * PostgreSQL streams: messages with leases. A claimed message's `available_at` is set to
 * its lease end, so "claimable" is one index range — `stream = $1 AND available_at <= now`
 * — whether the message was never claimed, released, or its lease ran out. A claim is one
 * statement: it locks the oldest claimable rows with `FOR UPDATE SKIP LOCKED` (so
 * concurrent claimers in any process take disjoint messages without waiting on each
 * other), dead-letters those past `maxDeliveries`, and leases the rest.
 *
 * Appends send `s:<stream>` on channel `weft` from the same statement, so listeners in
 * other processes hear of them only after the commit.
 */
import { checkMissedAck } from '../../claim-move.js';
import type { ErrorRecord, Json, NewMessage, StreamMessage } from '../../records.js';
import {
  after,
  appendsHeld,
  countOption,
  DEFAULT_PAGE,
  deliveryLimit,
} from '../../stream-options.js';
import { type Db, ms, sql, toJson, toRowId } from './context.js';

interface MessageRow {
  id: number;
  stream: string;
  job: string | null;
  payload: Json;
  deliveries: number;
  consumer: string | null;
  lease_until: number | null;
  available_at: number;
  created_at: number;
  last_error: ErrorRecord | null;
  /** Who held it before this claim took it over (claims only). */
  previous_consumer?: string | null;
}

function toMessage(row: MessageRow): StreamMessage {
  const previous = row.previous_consumer;
  return {
    ...(previous ? { previousConsumer: previous } : {}),
    id: String(row.id),
    stream: row.stream,
    payload: row.payload,
    job: row.job,
    deliveries: row.deliveries,
    consumer: row.consumer,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    availableAt: row.available_at,
    lastError: row.last_error,
  };
}

/** Stands in for "no maxDeliveries": no message is delivered this often. */
const NEVER = 2_147_483_647;

const COLUMNS =
  'id, stream, job, payload, deliveries, consumer, lease_until, available_at, created_at, last_error';
const M_COLUMNS =
  'm.id, m.stream, m.job, m.payload, m.deliveries, m.consumer, m.lease_until, m.available_at, m.created_at, m.last_error';
const DEAD_REASON = `'delivered ' || deliveries || ' times; maxDeliveries is ' || $MAX::int`;

const APPEND_ONE = sql(
  'message_append_one',
  `INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
   VALUES ($1, $2, $3, 0, $4, $5)
   RETURNING id, pg_notify('weft', 's:' || stream) IS NULL AS notified`,
);
const APPEND_MANY = sql(
  'message_append_many',
  `WITH src AS (
     SELECT nextval('weft_message_ids') AS id, u.stream, u.job, u.payload, u.available_at, u.ord
     FROM unnest($1::text[], $2::text[], $3::json[], $4::bigint[])
       WITH ORDINALITY AS u (stream, job, payload, available_at, ord)
   ), ins AS (
     INSERT INTO weft_messages (id, stream, job, payload, deliveries, available_at, created_at)
     SELECT id, stream, job, payload, 0, available_at, $5 FROM src
   )
   SELECT id, (SELECT bool_and(pg_notify('weft', 's:' || d.stream) IS NULL)
               FROM (SELECT DISTINCT stream FROM src) d) AS notified
   FROM src ORDER BY ord`,
);
// Appended already claimed (NewMessage.claim): no pg_notify, nobody else could claim them.
const APPEND_CLAIMED = sql(
  'message_append_claimed',
  `WITH src AS (
     SELECT nextval('weft_message_ids') AS id, u.stream, u.job, u.payload, u.consumer, u.until, u.ord
     FROM unnest($1::text[], $2::text[], $3::json[], $4::text[], $5::bigint[])
       WITH ORDINALITY AS u (stream, job, payload, consumer, until, ord)
   ), ins AS (
     INSERT INTO weft_messages
       (id, stream, job, payload, deliveries, consumer, lease_until, available_at, created_at)
     SELECT id, stream, job, payload, 1, consumer, until, until, $6 FROM src
   )
   SELECT id FROM src ORDER BY ord`,
);
// $1 stream, $2 now, $3 max, $4 consumer, $5 maxDeliveries, $6 lease end.
const CLAIM = sql(
  'message_claim',
  `WITH picked AS (
     SELECT id, deliveries, consumer AS previous_consumer FROM weft_messages
     WHERE stream = $1 AND available_at <= $2
     ORDER BY available_at, id LIMIT $3
     FOR UPDATE SKIP LOCKED
   ), dead AS (
     DELETE FROM weft_messages m USING picked p
     WHERE m.id = p.id AND p.deliveries > 0 AND p.deliveries >= $5
     RETURNING ${M_COLUMNS}
   ), buried AS (
     INSERT INTO weft_dead_letters
       (id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at)
     SELECT id, stream, job, payload, deliveries, ${DEAD_REASON.replace('$MAX', '$5')}, last_error, created_at, $2
     FROM dead RETURNING 1
   ), claimed AS (
     UPDATE weft_messages m
     SET consumer = $4, deliveries = m.deliveries + 1, lease_until = $6, available_at = $6
     FROM picked p WHERE m.id = p.id AND NOT (p.deliveries > 0 AND p.deliveries >= $5)
     RETURNING ${M_COLUMNS}, p.previous_consumer
   )
   SELECT c.*, b.n AS buried
   FROM (SELECT count(*) AS n FROM buried) b LEFT JOIN claimed c ON true
   ORDER BY c.id`,
);
const CLAIMABLE = sql(
  'message_claimable',
  `SELECT ${M_COLUMNS} FROM weft_messages m
   WHERE m.stream = $1 AND m.available_at <= $2 ORDER BY m.available_at, m.id LIMIT $3`,
);
const CLAIMABLE_AFTER = sql(
  'message_claimable_after',
  `SELECT ${M_COLUMNS} FROM weft_messages m
   WHERE m.stream = $1 AND m.available_at <= $2 AND (m.available_at, m.id) > ($4, $5)
   ORDER BY m.available_at, m.id LIMIT $3`,
);
// Claims picked messages through a queue: each keeps the queue and its key while held.
// One still claimable by `now` only (another claim may have taken it meanwhile).
const CLAIM_QUEUED = sql(
  'message_claim_queued',
  `WITH picked AS (
     SELECT m.id, u.key, m.consumer AS previous_consumer
     FROM unnest($2::bigint[], $3::text[]) AS u(id, key)
     JOIN weft_messages m ON m.id = u.id
     WHERE m.stream = $1 AND m.available_at <= $4
     FOR UPDATE OF m SKIP LOCKED
   )
   UPDATE weft_messages m
   SET consumer = $5, deliveries = m.deliveries + 1, lease_until = $6, available_at = $6,
     queue = $7, queue_key = p.key
   FROM picked p WHERE m.id = p.id
   RETURNING ${M_COLUMNS}, p.previous_consumer`,
);
const QUEUE_HELD = sql(
  'message_queue_held',
  `SELECT queue_key AS key, count(*)::int AS running FROM weft_messages
   WHERE queue = $1 AND available_at > $2 AND consumer IS NOT NULL GROUP BY queue_key`,
);
const HELD_LOCK = sql(
  'message_held_lock',
  "SELECT pg_advisory_xact_lock(hashtext('weft:held:' || $1)) IS NULL AS locked",
);
const HELD = sql(
  'message_held',
  `SELECT count(*)::int AS n FROM weft_messages
   WHERE stream = $1 AND available_at > $2 AND consumer IS NOT NULL`,
);
const ACK = sql(
  'message_ack',
  'DELETE FROM weft_messages WHERE id = $1 AND stream = $2 AND consumer = $3',
);
const HOLDER = sql(
  'message_holder',
  'SELECT id, consumer, deliveries FROM weft_messages WHERE stream = $1 AND id = ANY($2::bigint[])',
);
const OF_JOB = sql(
  'message_of_job',
  `SELECT ${COLUMNS} FROM weft_messages WHERE job = $1 ORDER BY id`,
);
// A row a claim holds (even uncommitted) is locked: the DELETE waits for it and then sees
// it held, so it stays. $1 job, $2 park stream, $3 now.
const PARK = sql(
  'message_park',
  `WITH moved AS (
     DELETE FROM weft_messages
     WHERE job = $1 AND stream <> $2 AND (consumer IS NULL OR available_at <= $3)
     RETURNING id, stream, job, payload, consumer, available_at
   ), ins AS (
     INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
     SELECT $2, job, json_build_object('stream', stream, 'payload', payload), 0,
       CASE WHEN consumer IS NULL THEN GREATEST(available_at, $3) ELSE $3 END, $3
     FROM moved ORDER BY id
     RETURNING 1
   )
   SELECT count(*)::int AS n FROM ins`,
);
const PARKED = sql(
  'message_parked',
  `DELETE FROM weft_messages WHERE stream = $1 AND job = $2 RETURNING id, payload, available_at`,
);
const ACK_MANY = sql(
  'message_ack_many',
  `DELETE FROM weft_messages WHERE stream = $1 AND consumer = $2 AND id = ANY($3::bigint[])
   RETURNING id`,
);
const EXTEND = sql(
  'message_extend',
  `UPDATE weft_messages SET lease_until = $1, available_at = $1
   WHERE stream = $2 AND consumer = $3 AND id = ANY($4::bigint[]) RETURNING id`,
);
const RELEASE = sql(
  'message_release',
  `UPDATE weft_messages SET consumer = NULL, lease_until = NULL, available_at = $1,
     last_error = COALESCE($5::json, last_error)
   WHERE id = $2 AND stream = $3 AND consumer = $4
   RETURNING pg_notify('weft', 's:' || stream) IS NULL AS notified`,
);
const REMOVE = sql(
  'message_remove',
  'DELETE FROM weft_messages WHERE stream = $1 AND id = ANY($2::bigint[])',
);
// $1 stream, $2 now, $3 maxDeliveries.
const RECLAIM = sql(
  'message_reclaim',
  `WITH dead AS (
     DELETE FROM weft_messages
     WHERE stream = $1 AND deliveries > 0 AND deliveries >= $3 AND available_at <= $2
     RETURNING ${COLUMNS}
   ), buried AS (
     INSERT INTO weft_dead_letters
       (id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at)
     SELECT id, stream, job, payload, deliveries, ${DEAD_REASON.replace('$MAX', '$3')}, last_error, created_at, $2
     FROM dead RETURNING 1
   ), freed AS (
     UPDATE weft_messages SET consumer = NULL, lease_until = NULL
     WHERE stream = $1 AND deliveries > 0 AND deliveries < $3 AND consumer IS NOT NULL
       AND available_at <= $2
     RETURNING 1
   )
   SELECT b.n AS buried, f.n AS freed,
     CASE WHEN f.n > 0 THEN pg_notify('weft', 's:' || $1) IS NULL END AS notified
   FROM (SELECT count(*) AS n FROM buried) b, (SELECT count(*) AS n FROM freed) f`,
);
const COUNT_ONE = sql('message_count', 'SELECT count(*) AS n FROM weft_messages WHERE stream = $1');
const COUNT_ALL = sql('message_count_all', 'SELECT count(*) AS n FROM weft_messages');
const PEEK = sql(
  'message_peek',
  `SELECT ${COLUMNS} FROM weft_messages WHERE stream = $1 ORDER BY id LIMIT $2`,
);
function rowIds(ids: string[]): string[] {
  return ids.map(toRowId).filter((id): id is string => id !== undefined);
}

/** Stream operations. */
export const streams = {
  /**
   * Appends messages and returns their ids, in order, in one statement (two when some
   * are appended already claimed).
   */
  async append(db: Db, messages: NewMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const now = db.clock.now();
    if (messages.some((m) => appendsHeld(m, now))) return streams.appendSome(db, messages);
    for (const m of messages) db.notify(`stream:${m.stream}`);
    if (messages.length === 1) {
      const m = messages[0] as NewMessage;
      const values = [m.stream, m.job ?? null, toJson(m.payload), ms(m.availableAt ?? now), now];
      const rows = await db.rows<{ id: number }>(APPEND_ONE, values);
      return rows.map((r) => String(r.id));
    }
    const rows = await db.rows<{ id: number }>(APPEND_MANY, [
      messages.map((m) => m.stream),
      messages.map((m) => m.job ?? null),
      messages.map((m) => toJson(m.payload)),
      messages.map((m) => ms(m.availableAt ?? now)),
      now,
    ]);
    return rows.map((r) => String(r.id));
  },

  /** Appends a mix of claimed and unclaimed messages; ids in the messages' order. */
  async appendSome(db: Db, messages: NewMessage[]): Promise<string[]> {
    const now = db.clock.now();
    const held = messages.map((m) => appendsHeld(m, now));
    const claimed = messages.filter((_, i) => held[i]);
    const free = messages.filter((_, i) => !held[i]).map(({ claim: _claim, ...m }) => m);
    const freeIds = free.length ? await streams.append(db, free) : [];
    const rows = await db.rows<{ id: number }>(APPEND_CLAIMED, [
      claimed.map((m) => m.stream),
      claimed.map((m) => m.job ?? null),
      claimed.map((m) => toJson(m.payload)),
      claimed.map((m) => m.claim?.consumer as string),
      claimed.map((m) => ms(after(now, m.claim?.leaseMs))),
      now,
    ]);
    const claimedIds = rows.map((r) => String(r.id));
    let c = 0;
    let f = 0;
    return messages.map((_, i) => (held[i] ? claimedIds[c++] : freeIds[f++]) as string);
  },

  /** Appends one message (signals use it). */
  async appendOne(db: Db, message: NewMessage): Promise<string> {
    const [id] = await streams.append(db, [message]);
    return id as string;
  },

  /**
   * Claims up to `max` claimable messages, dead-lettering those past `maxDeliveries`
   * (and claiming again in their place, so a claim is not cut short by them).
   */
  async claim(
    db: Db,
    stream: string,
    options: {
      consumer: string;
      max?: number;
      leaseMs: number;
      maxDeliveries?: number;
      maxHeld?: number;
    },
  ): Promise<StreamMessage[]> {
    let want = countOption(options.max, 1);
    if (options.maxHeld !== undefined) {
      // Claims that count what is held take turns, per stream, to the end of the transaction.
      await db.rows(HELD_LOCK, [stream]);
      const [held] = await db.rows<{ n: number }>(HELD, [stream, db.clock.now()]);
      want = Math.min(want, Math.max(0, options.maxHeld - (held?.n ?? 0)));
    }
    const maxDeliveries = Math.min(NEVER, deliveryLimit(options.maxDeliveries) ?? NEVER);
    const out: StreamMessage[] = [];
    while (want > 0) {
      const now = db.clock.now();
      const until = ms(after(now, options.leaseMs));
      const rows = await db.rows<MessageRow & { buried: number }>(CLAIM, [
        stream,
        now,
        want,
        options.consumer,
        maxDeliveries,
        until,
      ]);
      const claimed = rows.filter((r) => r.id !== null).map(toMessage);
      out.push(...claimed);
      want -= claimed.length;
      if ((rows[0]?.buried ?? 0) === 0) break;
    }
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  },

  /** Up to `limit` messages of `stream` claimable at `now`, oldest first, left unclaimed. */
  async claimableMessages(
    db: Db,
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ): Promise<StreamMessage[]> {
    const rows = after
      ? await db.rows<MessageRow>(CLAIMABLE_AFTER, [
          stream,
          now,
          limit,
          after.availableAt,
          toRowId(after.id) ?? '0',
        ])
      : await db.rows<MessageRow>(CLAIMABLE, [stream, now, limit]);
    return rows.map(toMessage);
  },

  /** Claims picked messages of `stream` through queue `queue`, each under its key. */
  async claimQueued(
    db: Db,
    stream: string,
    picks: readonly { id: string; key: string }[],
    options: { consumer: string; leaseMs: number; queue: string },
  ): Promise<StreamMessage[]> {
    const wanted = picks.filter((p) => toRowId(p.id) !== undefined);
    if (wanted.length === 0) return [];
    const now = db.clock.now();
    const rows = await db.rows<MessageRow>(CLAIM_QUEUED, [
      stream,
      wanted.map((p) => toRowId(p.id)),
      wanted.map((p) => p.key),
      now,
      options.consumer,
      ms(after(now, options.leaseMs)),
      options.queue,
    ]);
    return rows.map(toMessage).sort((a, b) => Number(a.id) - Number(b.id));
  },

  /** The attempts queue `queue` holds at `now` (under a live lease), per key. */
  async queueHeld(db: Db, queue: string, now: number): Promise<{ key: string; running: number }[]> {
    return db.rows<{ key: string; running: number }>(QUEUE_HELD, [queue, now]);
  },

  /** Deletes a message when `consumer` still holds it. */
  async ack(db: Db, stream: string, id: string, consumer: string): Promise<boolean> {
    const rowId = toRowId(id);
    if (rowId === undefined) return false;
    if ((await db.count(ACK, [rowId, stream, consumer])) === 1) return true;
    await streams.checkMissed(db, stream, [id]);
    return false;
  },

  /** Acks several messages of one stream; returns the ids `consumer` still held. */
  async ackMany(db: Db, stream: string, ids: string[], consumer: string): Promise<string[]> {
    const wanted = rowIds(ids);
    if (wanted.length === 0) return [];
    const rows = await db.rows<{ id: number }>(ACK_MANY, [stream, consumer, wanted]);
    const held = new Set(rows.map((r) => String(r.id)));
    const missed = ids.filter((id) => !held.has(id));
    if (missed.length > 0) await streams.checkMissed(db, stream, missed);
    return ids.filter((id) => held.has(id));
  },

  /** Throws when an ack missed a message nobody holds (UNCLAIMED → COMPLETE). */
  async checkMissed(db: Db, stream: string, ids: string[]): Promise<void> {
    const rows = await db.rows<{ id: number; consumer: string | null; deliveries: number }>(
      HOLDER,
      [stream, rowIds(ids)],
    );
    for (const row of rows) checkMissedAck(stream, String(row.id), row);
  },

  /** Every message of a job, in id order. */
  async jobMessages(db: Db, job: string): Promise<StreamMessage[]> {
    return (await db.rows<MessageRow>(OF_JOB, [job])).map(toMessage);
  },

  /** Moves a job's messages nobody holds into stream `into`; returns how many. */
  async parkMessages(db: Db, job: string, into: string): Promise<number> {
    const [row] = await db.rows<{ n: number }>(PARK, [job, into, db.clock.now()]);
    return row?.n ?? 0;
  },

  /** Moves a job's messages parked in `from` back to their streams; returns how many. */
  async unparkMessages(db: Db, job: string, from: string): Promise<number> {
    const rows = await db.rows<{
      id: number;
      payload: { stream: string; payload: Json };
      available_at: string;
    }>(PARKED, [from, job]);
    if (rows.length === 0) return 0;
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    const now = db.clock.now();
    await streams.append(
      db,
      rows.map((r) => ({
        stream: r.payload.stream,
        job,
        payload: r.payload.payload,
        // A message that was not due yet (a retry's backoff, a delayed start) keeps its time.
        ...(Number(r.available_at) > now && { availableAt: Number(r.available_at) }),
      })),
    );
    return rows.length;
  },

  /** Extends the leases `consumer` still holds; returns those ids. */
  async extendLease(
    db: Db,
    stream: string,
    ids: string[],
    consumer: string,
    leaseMs: number,
  ): Promise<string[]> {
    const wanted = rowIds(ids);
    if (wanted.length === 0) return [];
    const until = ms(after(db.clock.now(), leaseMs));
    const rows = await db.rows<{ id: number }>(EXTEND, [until, stream, consumer, wanted]);
    const held = new Set(rows.map((r) => String(r.id)));
    return ids.filter((id) => held.has(id));
  },

  /** Gives a held message back, claimable after `delayMs`. */
  async release(
    db: Db,
    stream: string,
    id: string,
    consumer: string,
    delayMs = 0,
    lastError?: ErrorRecord,
  ): Promise<boolean> {
    const rowId = toRowId(id);
    if (rowId === undefined) return false;
    const at = ms(after(db.clock.now(), delayMs));
    const error = lastError === undefined ? null : toJson(lastError as unknown as Json);
    const released = (await db.count(RELEASE, [at, rowId, stream, consumer, error])) === 1;
    if (released) db.notify(`stream:${stream}`);
    return released;
  },

  /** Deletes messages whoever holds them. */
  async remove(db: Db, stream: string, ids: string[]): Promise<number> {
    const wanted = rowIds(ids);
    return wanted.length === 0 ? 0 : db.count(REMOVE, [stream, wanted]);
  },

  /** Frees expired leases and dead-letters claimable messages past `maxDeliveries`. */
  async reclaimExpired(
    db: Db,
    stream: string,
    options: { maxDeliveries?: number } = {},
  ): Promise<{ reclaimed: number; deadLettered: number }> {
    const max = Math.min(NEVER, deliveryLimit(options.maxDeliveries) ?? NEVER);
    const [row] = await db.rows<{ buried: number; freed: number }>(RECLAIM, [
      stream,
      db.clock.now(),
      max,
    ]);
    const reclaimed = row?.freed ?? 0;
    if (reclaimed > 0) db.notify(`stream:${stream}`);
    return { reclaimed, deadLettered: row?.buried ?? 0 };
  },

  /** Messages waiting or held in one stream, or in all. */
  async countMessages(db: Db, stream?: string): Promise<number> {
    const [row] =
      stream === undefined
        ? await db.rows<{ n: number }>(COUNT_ALL, [])
        : await db.rows<{ n: number }>(COUNT_ONE, [stream]);
    return row?.n ?? 0;
  },

  /** Reads messages in id order without claiming them. */
  async peek(db: Db, stream: string, limit?: number): Promise<StreamMessage[]> {
    const rows = await db.rows<MessageRow>(PEEK, [stream, countOption(limit, DEFAULT_PAGE)]);
    return rows.map(toMessage);
  },
};
