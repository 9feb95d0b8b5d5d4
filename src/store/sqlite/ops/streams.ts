/**
 * SQLite streams: messages with leases. A claimed message's `available_at` is set to its
 * lease end, so "claimable" is one index range — `stream = ? AND available_at <= now` —
 * whether the message was never claimed, released, or its lease ran out. A claim takes
 * the oldest claimable messages (by `available_at`, then id) in one UPDATE … RETURNING.
 */
import { checkMissedAck } from '../../claim-move.js';
import type {
  DeadLetter,
  ErrorRecord,
  Json,
  NewMessage,
  QueuedClaimOptions,
  QueuedPick,
  StreamMessage,
} from '../../records.js';
import {
  after,
  appendsHeld,
  countOption,
  DEFAULT_PAGE,
  deliveryLimit,
} from '../../stream-options.js';
import { fromJson, type OpsContext, type Statement, toJson } from './context.js';

interface MessageRow {
  id: number;
  stream: string;
  job: string | null;
  payload: string;
  deliveries: number;
  consumer: string | null;
  lease_until: number | null;
  available_at: number;
  created_at: number;
  last_error: string | null;
}

interface DeadLetterRow {
  id: number;
  stream: string;
  job: string | null;
  payload: string;
  deliveries: number;
  reason: string;
  last_error: string | null;
  created_at: number;
  dead_at: number;
}

function toMessage(row: MessageRow): StreamMessage {
  return {
    id: String(row.id),
    stream: row.stream,
    payload: fromJson(row.payload),
    job: row.job,
    deliveries: row.deliveries,
    consumer: row.consumer,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    availableAt: row.available_at,
    lastError: row.last_error === null ? null : (fromJson(row.last_error) as ErrorRecord),
  };
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: String(row.id),
    stream: row.stream,
    payload: fromJson(row.payload),
    job: row.job,
    deliveries: row.deliveries,
    reason: row.reason,
    lastError: row.last_error === null ? null : (fromJson(row.last_error) as ErrorRecord),
    createdAt: row.created_at,
    deadAt: row.dead_at,
  };
}

/** A message id as a row id, or undefined when it cannot be one. */
export function toRowId(id: string): number | undefined {
  return /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : undefined;
}

function rowIds(ids: string[]): string {
  return JSON.stringify(ids.map(toRowId).filter((n) => n !== undefined));
}

const COLUMNS =
  'id, stream, job, payload, deliveries, consumer, lease_until, available_at, created_at, last_error';
/** Claimable messages delivered `max` times or more (the partial index covers deliveries > 0). */
const DUE_DEAD = `stream = @stream AND deliveries > 0 AND deliveries >= @max AND available_at <= @now`;

/** Stream operations on one connection. */
export class SqliteStreams {
  private readonly s: Record<string, Statement>;

  constructor(private readonly ctx: OpsContext) {
    const p = (sql: string) => ctx.db.prepare(sql);
    this.s = {
      insert:
        p(`INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
        VALUES (?, ?, ?, 0, ?, ?)`),
      insertClaimed: p(`INSERT INTO weft_messages
        (stream, job, payload, deliveries, consumer, lease_until, available_at, created_at)
        VALUES (?, ?, ?, 1, ?, ?, ?, ?)`),
      // Who held the messages a claim is about to take (a lease that ran out).
      // The claim's own `max` rows drive it: filtered over the stream's claimable range
      // instead, it read every message of a backlog on each claim.
      holders: p(`SELECT m.id, m.consumer FROM (SELECT id FROM weft_messages
            WHERE stream = @stream AND available_at <= @now ORDER BY available_at, id LIMIT @max) c
          CROSS JOIN weft_messages m ON m.id = c.id WHERE m.consumer IS NOT NULL`),
      holder: p('SELECT consumer, deliveries FROM weft_messages WHERE id = ? AND stream = ?'),
      ofJob: p(`SELECT ${COLUMNS} FROM weft_messages WHERE job = ? ORDER BY id`),
      held: p(`SELECT count(*) AS n FROM weft_messages
        WHERE stream = ? AND available_at > ? AND consumer IS NOT NULL`),
      park: p(`INSERT INTO weft_messages (stream, job, payload, deliveries, available_at, created_at)
        SELECT @into, job, json_object('stream', stream, 'payload', json(payload)), 0,
          CASE WHEN consumer IS NULL THEN max(available_at, @now) ELSE @now END, @now
        FROM weft_messages
        WHERE job = @job AND stream <> @into AND (consumer IS NULL OR available_at <= @now)
        ORDER BY id`),
      parkDelete: p(`DELETE FROM weft_messages
        WHERE job = @job AND stream <> @into AND (consumer IS NULL OR available_at <= @now)`),
      parked: p(`SELECT ${COLUMNS} FROM weft_messages WHERE stream = ? AND job = ? ORDER BY id`),
      parkedDelete: p('DELETE FROM weft_messages WHERE stream = ? AND job = ?'),
      claim: p(`UPDATE weft_messages
        SET consumer = @consumer, deliveries = deliveries + 1, lease_until = @until, available_at = @until
        WHERE id IN (SELECT id FROM weft_messages WHERE stream = @stream AND available_at <= @now
          ORDER BY available_at, id LIMIT @max)
        RETURNING ${COLUMNS}`),
      claimable: p(`SELECT ${COLUMNS} FROM weft_messages
        WHERE stream = ? AND available_at <= ? ORDER BY available_at, id LIMIT ?`),
      claimableAfter: p(`SELECT ${COLUMNS} FROM weft_messages
        WHERE stream = ? AND available_at <= ? AND (available_at, id) > (?, ?)
        ORDER BY available_at, id LIMIT ?`),
      claimOne: p(`UPDATE weft_messages
        SET consumer = @consumer, deliveries = deliveries + 1, lease_until = @until,
          available_at = @until, queue = @queue, queue_key = @key
        WHERE id = @id AND stream = @stream AND available_at <= @now
        RETURNING ${COLUMNS}`),
      queueHeld: p(`SELECT queue_key AS key, count(*) AS running FROM weft_messages
        WHERE queue = ? AND available_at > ? AND consumer IS NOT NULL GROUP BY queue_key`),
      buryDue: p(`INSERT INTO weft_dead_letters
          (id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at)
        SELECT id, stream, job, payload, deliveries,
          'delivered ' || deliveries || ' times; maxDeliveries is ' || @max, last_error, created_at, @now
        FROM weft_messages WHERE ${DUE_DEAD}`),
      buryHeld: p(`INSERT INTO weft_dead_letters
          (id, stream, job, payload, deliveries, reason, last_error, created_at, dead_at)
        SELECT id, stream, job, payload, deliveries, @reason, COALESCE(@error, last_error),
          created_at, @now
        FROM weft_messages WHERE id = @id AND stream = @stream AND consumer = @consumer`),
      deleteDue: p(`DELETE FROM weft_messages WHERE ${DUE_DEAD}`),
      reclaim: p(`UPDATE weft_messages SET consumer = NULL, lease_until = NULL
        WHERE stream = ? AND deliveries > 0 AND consumer IS NOT NULL AND available_at <= ?`),
      ack: p('DELETE FROM weft_messages WHERE id = ? AND stream = ? AND consumer = ?'),
      extend: p(`UPDATE weft_messages SET lease_until = @until, available_at = @until
        WHERE stream = @stream AND consumer = @consumer
          AND id IN (SELECT value FROM json_each(@ids)) RETURNING id`),
      release: p(`UPDATE weft_messages SET consumer = NULL, lease_until = NULL, available_at = ?,
          last_error = COALESCE(?, last_error)
        WHERE id = ? AND stream = ? AND consumer = ?`),
      remove: p(
        'DELETE FROM weft_messages WHERE stream = ? AND id IN (SELECT value FROM json_each(?))',
      ),
      countOne: p('SELECT COUNT(*) FROM weft_messages WHERE stream = ?').pluck(),
      countAll: p('SELECT COUNT(*) FROM weft_messages').pluck(),
      peek: p(`SELECT ${COLUMNS} FROM weft_messages WHERE stream = ? ORDER BY id LIMIT ?`),
      deadOne: p('SELECT * FROM weft_dead_letters WHERE stream = ? ORDER BY id LIMIT ?'),
      deadAll: p('SELECT * FROM weft_dead_letters ORDER BY id LIMIT ?'),
      deadGet: p('SELECT * FROM weft_dead_letters WHERE id = ?'),
      deadDelete: p('DELETE FROM weft_dead_letters WHERE id = ?'),
    };
  }

  private st(name: string): Statement {
    return this.s[name] as Statement;
  }

  /** Appends messages and returns their ids, in order. */
  append(messages: NewMessage[]): string[] {
    const now = this.ctx.clock.now();
    const insert = this.st('insert');
    const insertClaimed = this.st('insertClaimed');
    const ids: string[] = [];
    for (const m of messages) {
      if (m.claim && appendsHeld(m, now)) {
        // Already held by its consumer: no notice, nobody else could claim it.
        const until = after(now, m.claim.leaseMs);
        const claimed = insertClaimed.run(
          m.stream,
          m.job ?? null,
          toJson(m.payload),
          m.claim.consumer,
          until,
          until,
          now,
        );
        ids.push(String(claimed.lastInsertRowid));
        continue;
      }
      const result = insert.run(
        m.stream,
        m.job ?? null,
        toJson(m.payload),
        m.availableAt ?? now,
        now,
      );
      ids.push(String(result.lastInsertRowid));
      this.ctx.notify(`stream:${m.stream}`);
    }
    return ids;
  }

  /** Appends one message (timers, signals and requeued dead letters use it). */
  appendOne(message: NewMessage): string {
    return this.append([message])[0] as string;
  }

  /** Claims up to `max` claimable messages, dead-lettering those past `maxDeliveries`. */
  claim(
    stream: string,
    options: {
      consumer: string;
      max?: number;
      leaseMs: number;
      maxDeliveries?: number;
      maxHeld?: number;
    },
  ): StreamMessage[] {
    const now = this.ctx.clock.now();
    let max = countOption(options.max, 1);
    if (options.maxHeld !== undefined) {
      // One writer at a time: what is held cannot change between the count and the claim.
      const held = this.st('held').get(stream, now) as { n: number };
      max = Math.min(max, Math.max(0, options.maxHeld - held.n));
    }
    if (max <= 0) return [];
    const limit = deliveryLimit(options.maxDeliveries);
    if (limit !== undefined) this.bury(stream, now, limit);
    const held = this.st('holders').all({ stream, now, max }) as { id: number; consumer: string }[];
    const rows = this.st('claim').all({
      consumer: options.consumer,
      until: after(now, options.leaseMs),
      stream,
      now,
      max,
    }) as MessageRow[];
    const previous = new Map(held.map((h) => [h.id, h.consumer]));
    return rows
      .sort((a, b) => a.id - b.id)
      .map((row) => {
        const message = toMessage(row);
        const before = previous.get(row.id);
        return before === undefined ? message : { ...message, previousConsumer: before };
      });
  }

  /** Up to `limit` messages of `stream` claimable at `now`, oldest first, left unclaimed. */
  claimableMessages(
    stream: string,
    now: number,
    limit: number,
    after?: Pick<StreamMessage, 'id' | 'availableAt'>,
  ): StreamMessage[] {
    const rows = after
      ? this.st('claimableAfter').all(stream, now, after.availableAt, toRowId(after.id) ?? 0, limit)
      : this.st('claimable').all(stream, now, limit);
    return (rows as MessageRow[]).map(toMessage);
  }

  /** Claims picked messages of `stream` through queue `options.queue`, each under its key. */
  claimQueued(
    stream: string,
    picks: readonly QueuedPick[],
    options: QueuedClaimOptions,
  ): StreamMessage[] {
    const now = this.ctx.clock.now();
    const until = after(now, options.leaseMs);
    const out: StreamMessage[] = [];
    for (const pick of picks) {
      const id = toRowId(pick.id);
      if (id === undefined) continue;
      const before = this.st('holder').get(id, stream) as { consumer: string | null } | undefined;
      const row = this.st('claimOne').get({
        consumer: options.consumer,
        until,
        queue: options.queue,
        key: pick.key,
        id,
        stream,
        now,
      }) as MessageRow | undefined;
      if (!row) continue;
      const message = toMessage(row);
      out.push(before?.consumer ? { ...message, previousConsumer: before.consumer } : message);
    }
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** The attempts queue `queue` holds at `now` (under a live lease), per key. */
  queueHeld(queue: string, now: number): { key: string; running: number }[] {
    return this.st('queueHeld').all(queue, now) as { key: string; running: number }[];
  }

  private bury(stream: string, now: number, maxDeliveries: number): number {
    const params = { stream, now, max: maxDeliveries };
    const moved = this.st('buryDue').run(params).changes;
    if (moved > 0) this.st('deleteDue').run(params);
    return moved;
  }

  /** Deletes a message when `consumer` still holds it. */
  ack(stream: string, id: string, consumer: string): boolean {
    const rowId = toRowId(id);
    if (rowId === undefined) return false;
    if (this.st('ack').run(rowId, stream, consumer).changes === 1) return true;
    const row = this.st('holder').get(rowId, stream) as
      | { consumer: string | null; deliveries: number }
      | undefined;
    checkMissedAck(stream, id, row);
    return false;
  }

  /** Every message of a job, in id order. */
  jobMessages(job: string): StreamMessage[] {
    return (this.st('ofJob').all(job) as MessageRow[]).map(toMessage);
  }

  /** Moves a job's messages nobody holds into stream `into`; returns how many. */
  parkMessages(job: string, into: string): number {
    const params = { job, into, now: this.ctx.clock.now() };
    const moved = this.st('park').run(params).changes;
    if (moved > 0) this.st('parkDelete').run(params);
    return moved;
  }

  /** Moves a job's messages parked in `from` back to their streams; returns how many. */
  unparkMessages(job: string, from: string): number {
    const rows = this.st('parked').all(from, job) as MessageRow[];
    if (rows.length === 0) return 0;
    const now = this.ctx.clock.now();
    this.append(
      rows.map((row) => {
        const parked = fromJson(row.payload) as { stream: string; payload: Json };
        const at = Number(row.available_at);
        // A message that was not due yet (a retry's backoff, a delayed start) keeps its time.
        return {
          stream: parked.stream,
          job,
          payload: parked.payload,
          ...(at > now && { availableAt: at }),
        };
      }),
    );
    this.st('parkedDelete').run(from, job);
    return rows.length;
  }

  /** Extends the leases `consumer` still holds; returns those ids. */
  extendLease(stream: string, ids: string[], consumer: string, leaseMs: number): string[] {
    if (ids.length === 0) return [];
    const until = after(this.ctx.clock.now(), leaseMs);
    const rows = this.st('extend')
      .all({ until, stream, consumer, ids: rowIds(ids) })
      .map((r) => String((r as { id: number }).id));
    const held = new Set(rows);
    return ids.filter((id) => held.has(id));
  }

  /** Gives a held message back, claimable after `delayMs`, keeping `lastError` with it. */
  release(
    stream: string,
    id: string,
    consumer: string,
    delayMs = 0,
    lastError?: ErrorRecord,
  ): boolean {
    const rowId = toRowId(id);
    if (rowId === undefined) return false;
    const at = after(this.ctx.clock.now(), delayMs);
    const error = lastError === undefined ? null : toJson(lastError as unknown as Json);
    const released = this.st('release').run(at, error, rowId, stream, consumer).changes === 1;
    if (released) this.ctx.notify(`stream:${stream}`);
    return released;
  }

  /** Deletes messages whoever holds them. */
  remove(stream: string, ids: string[]): number {
    return ids.length === 0 ? 0 : this.st('remove').run(stream, rowIds(ids)).changes;
  }

  /** Frees expired leases and dead-letters claimable messages past `maxDeliveries`. */
  reclaimExpired(
    stream: string,
    options: { maxDeliveries?: number } = {},
  ): { reclaimed: number; deadLettered: number } {
    const now = this.ctx.clock.now();
    const limit = deliveryLimit(options.maxDeliveries);
    const deadLettered = limit === undefined ? 0 : this.bury(stream, now, limit);
    const reclaimed = this.st('reclaim').run(stream, now).changes;
    if (reclaimed > 0) this.ctx.notify(`stream:${stream}`);
    return { reclaimed, deadLettered };
  }

  /** Messages waiting or held in one stream, or in all. */
  countMessages(stream?: string): number {
    return (
      stream === undefined ? this.st('countAll').get() : this.st('countOne').get(stream)
    ) as number;
  }

  /** Reads messages in id order without claiming them. */
  peek(stream: string, limit?: number): StreamMessage[] {
    const rows = this.st('peek').all(stream, countOption(limit, DEFAULT_PAGE));
    return (rows as MessageRow[]).map(toMessage);
  }

  /** Dead letters in id order, of one stream or all. */
  listDeadLetters(stream?: string, limit?: number): DeadLetter[] {
    const page = countOption(limit, DEFAULT_PAGE);
    const rows =
      stream === undefined ? this.st('deadAll').all(page) : this.st('deadOne').all(stream, page);
    return (rows as DeadLetterRow[]).map(toDeadLetter);
  }

  /** Moves a message `consumer` holds to the dead letters now; undefined when it no longer holds it. */
  deadLetter(
    stream: string,
    id: string,
    consumer: string,
    reason: string,
    lastError?: ErrorRecord,
  ): DeadLetter | undefined {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const error = lastError === undefined ? null : toJson(lastError as unknown as Json);
    const params = { id: rowId, stream, consumer, reason, error, now: this.ctx.clock.now() };
    if (this.st('buryHeld').run(params).changes !== 1) return undefined;
    this.st('ack').run(rowId, stream, consumer);
    return this.getDeadLetter(id);
  }

  /** One dead letter, by id. */
  getDeadLetter(id: string): DeadLetter | undefined {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const row = this.st('deadGet').get(rowId) as DeadLetterRow | undefined;
    return row ? toDeadLetter(row) : undefined;
  }

  /** Moves a dead letter back to its stream as a new message; returns its new id. */
  requeueDeadLetter(id: string): string | undefined {
    const rowId = toRowId(id);
    if (rowId === undefined) return undefined;
    const row = this.st('deadGet').get(rowId) as DeadLetterRow | undefined;
    if (!row) return undefined;
    this.st('deadDelete').run(rowId);
    return this.appendOne({ stream: row.stream, job: row.job, payload: fromJson(row.payload) });
  }
}
