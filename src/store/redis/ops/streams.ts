/**
 * Redis streams (docs/store-redis.md, section 3): a message is a hash,
 * `weft:{p}:msg:<id>`; a stream is three sorted sets of its messages — `due` by the time
 * each is claimable (its `availableAt`, or its lease end while held: SQLite's model, so
 * "claimable" is one range of one index whether a message was never claimed, given back,
 * or its lease ran out), `held` by lease end (what `maxHeld` counts), `ids` by id — and a
 * job's messages are a sorted set too. Leases and delays are times of the store's
 * injected clock, never Redis's own.
 *
 * A claim runs at once, as its own script (two workers never pick the same message, and
 * never wait for each other's commit), and inside a transaction leaves an undo that gives
 * the messages back as they were should the transaction roll back or run again. Appends,
 * acks, releases and lease extensions are buffered and applied by the commit script,
 * which checks that each message acked or extended is still held by its consumer: the
 * child messages and the parent's ack are one atomic step (the chain of custody).
 *
 * A message lives in its job's partition (a message with no job in partition 0), and its
 * id says which (partitions.ts), so a stream is spread over every partition: reads and
 * claims visit them all; everything about one message stays in one slot.
 */
import { randomUUID } from 'node:crypto';
import { checkMissedAck } from '../../claim-move.js';
import type {
  ClaimOptions,
  DeadLetter,
  ErrorRecord,
  Json,
  NewMessage,
  StreamMessage,
} from '../../records.js';
import {
  after,
  appendsHeld,
  countOption,
  DEFAULT_PAGE,
  deliveryLimit,
} from '../../stream-options.js';
import type { DueHeads } from '../due-heads.js';
import { fenceKey, globalKeys as G, idOf, partitionKeys as K, member } from '../keys.js';
import type { RedisTx } from '../redis-tx.js';
import { noteOwner } from './owned.js';

/** The partition a message lives in, from its id. */
function mp(tx: RedisTx, id: string): number {
  return tx.partitions.ofMessage(id);
}

/** A message's hash key. */
function messageKey(tx: RedisTx, id: string): string {
  return K.message(mp(tx, id), id);
}

/** What the commit does to message `id`'s Redis Stream entry (of `stream`). */
function entry(
  tx: RedisTx,
  stream: string,
  id: string,
  kind: 'add' | 'sync' | 'done',
  job = '',
): void {
  const P = mp(tx, id);
  tx.entry(K.message(P, id), { kind, stream: K.stream(P, stream), id, job });
}

/** Where claims start next: they visit the partitions in a rotating order. */
let rotation = 0;

/** A message id as the store makes them, or undefined for text that cannot be one. */
function validId(id: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(id);
}

/** The message a hash holds; undefined when it is gone. */
function toMessage(id: string, fields: Map<string, string>): StreamMessage | undefined {
  const stream = fields.get('stream');
  if (stream === undefined) return undefined;
  const num = (name: string) => {
    const text = fields.get(name);
    return text === undefined ? null : Number(text);
  };
  const lastError = fields.get('lastError');
  return {
    id,
    stream,
    payload: JSON.parse(fields.get('payload') ?? 'null') as Json,
    job: fields.get('job') ?? null,
    deliveries: num('deliveries') ?? 0,
    consumer: fields.get('consumer') ?? null,
    leaseUntil: num('leaseUntil'),
    createdAt: num('createdAt') ?? 0,
    availableAt: num('availableAt') ?? 0,
    lastError: lastError === undefined ? null : (JSON.parse(lastError) as ErrorRecord),
  };
}

/** Reads messages by id, as this transaction sees them, leaving out those gone. */
export async function readMessages(tx: RedisTx, ids: string[]): Promise<StreamMessage[]> {
  const found = await Promise.all(
    ids.map(async (id) => toMessage(id, await tx.hgetall(messageKey(tx, id)))),
  );
  return found.filter((m): m is StreamMessage => m !== undefined);
}

/** Reads messages from Redis as they are now (after a claim's script changed them). */
async function readFresh(tx: RedisTx, ids: string[]): Promise<StreamMessage[]> {
  // One command each (auto-pipelined per node): on a cluster they are in several slots.
  const replies = await Promise.all(ids.map((id) => tx.redis.hgetall(messageKey(tx, id))));
  const out: StreamMessage[] = [];
  ids.forEach((id, i) => {
    const message = toMessage(id, new Map(Object.entries(replies[i] ?? {})));
    if (message) out.push(message);
  });
  return out;
}

/** Appends messages; ids are taken now (a rolled-back append leaves a gap). */
export async function append(tx: RedisTx, messages: NewMessage[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const now = tx.now();
  // Made into text first, so a payload that is not JSON fails before an id is taken.
  const payloads = messages.map((m) => JSON.stringify(m.payload ?? null));
  const partitions = await Promise.all(messages.map((m) => (m.job ? tx.partitionOf(m.job) : 0)));
  const last = await tx.redis.incrby(G.messageIds, messages.length);
  const ids = messages.map((_, i) =>
    tx.partitions.messageId(last - messages.length + 1 + i, partitions[i] as number),
  );
  messages.forEach((m, i) => {
    const id = ids[i] as string;
    const P = partitions[i] as number;
    const held = m.claim !== undefined && appendsHeld(m, now);
    const until = held ? after(now, m.claim?.leaseMs) : undefined;
    const availableAt = until ?? Math.round(m.availableAt ?? now);
    const fields: [string, string][] = [
      ['stream', m.stream],
      ['payload', payloads[i] as string],
      ['createdAt', String(now)],
      ['availableAt', String(availableAt)],
      ['deliveries', held ? '1' : '0'],
    ];
    if (m.job) fields.push(['job', m.job]);
    if (held) {
      fields.push(['consumer', m.claim?.consumer as string], ['leaseUntil', String(until)]);
    }
    const at = member(id);
    tx.hset(K.message(P, id), fields);
    tx.member(K.due(P, m.stream), at, availableAt);
    tx.member(K.ids(P, m.stream), at, Number(id));
    tx.member(K.streams(P), m.stream, 0);
    if (m.job) tx.member(K.jobMessages(P, m.job), at, Number(id));
    entry(tx, m.stream, id, 'add', m.job ?? '');
    if (held) tx.member(K.held(P, m.stream), at, until as number);
    // A message appended held needs no notice: nobody else could claim it.
    else tx.notify(`stream:${m.stream}`, P);
  });
  return ids;
}

/** Claims up to `max` claimable messages now (see the file's comment). */
export async function claim(
  tx: RedisTx,
  stream: string,
  options: ClaimOptions,
): Promise<StreamMessage[]> {
  const max = countOption(options.max, 1);
  if (max === 0) return [];
  const now = tx.now();
  const until = after(now, options.leaseMs);
  const maxHeld =
    options.maxHeld === undefined ? undefined : Math.max(0, Math.floor(options.maxHeld));
  if (tx.partitions.count === 1) {
    return claimIn(tx, 0, stream, options, now, until, max, maxHeld);
  }
  if (maxHeld === undefined) return claimSpread(tx, stream, options, now, until, max, undefined);
  // `maxHeld` counts the held messages of every partition: claims with it take turns, under
  // a short lock of the stream in `{g}`, so two of them cannot both fill the same room.
  const lock = G.lock(`claim:${stream}`);
  const token = randomUUID();
  for (let wait = 1; ; wait = Math.min(20, wait * 2)) {
    if ((await tx.redis.set(lock, token, 'PX', CLAIM_LOCK_MS, 'NX')) === 'OK') break;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  try {
    return await claimSpread(tx, stream, options, now, until, max, maxHeld);
  } finally {
    await tx.redis.weftCommit(1, [lock, 'own', '1', token, '|', 'unlock', '1', token]);
  }
}

/** How long a `maxHeld` claim may hold its stream's claim lock (a client that died). */
const CLAIM_LOCK_MS = 5_000;

/**
 * A claim over several partitions: finds the `max` oldest claimable messages across them
 * (each partition's due set is in claim order), then claims each partition's share with
 * its own script, visiting the partitions in a rotating order. A race with another claim
 * between the two only changes which messages this one gets. Partitions where nothing
 * can be claimable yet, by what the last claim saw there and the notices heard since,
 * are not read (due-heads.ts).
 */
async function claimSpread(
  tx: RedisTx,
  stream: string,
  options: ClaimOptions,
  now: number,
  until: number,
  max: number,
  maxHeld: number | undefined,
): Promise<StreamMessage[]> {
  const partitions = tx.partitions.all();
  const start = rotation++ % partitions.length;
  const order = [...partitions.slice(start), ...partitions.slice(0, start)];
  const heads = tx.dueHeads;
  const reading = heads ? heads.toRead(stream, order, now) : order;
  if (reading.length === 0 && maxHeld === undefined) {
    return claimOwn(tx, order, stream, options, max, now, until);
  }
  const mark = heads?.mark(stream) ?? 0;
  const [pages, held] = await Promise.all([
    // The first max + 1 of each due set, claimable or not: what is not yet claimable
    // says when the partition is worth reading again.
    Promise.all(
      reading.map((p) =>
        tx.redis.zrangebyscore(K.due(p, stream), '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, max + 1),
      ),
    ),
    maxHeld === undefined
      ? undefined
      : Promise.all(order.map((p) => tx.redis.zcount(K.held(p, stream), `(${now}`, '+inf'))),
  ]);
  const room = held === undefined ? max : Math.min(max, (maxHeld as number) - sum(held));
  const candidates: { p: number; score: number; at: string }[] = [];
  /** Per partition read: how many are claimable now, and the first time after now. */
  const found = new Map<number, { due: number; next: number }>();
  pages.forEach((page, i) => {
    const p = reading[i] as number;
    let due = 0;
    // The page is in score order: its first later score is the partition's next time;
    // a page of max + 1 all claimable now says nothing of what follows (read again).
    let next = Number.NaN;
    for (let j = 0; j < page.length; j += 2) {
      const score = Number(page[j + 1]);
      if (score > now) {
        next = score;
        break;
      }
      due++;
      candidates.push({ p, at: page[j] as string, score });
    }
    if (Number.isNaN(next)) next = due > max ? now : Number.POSITIVE_INFINITY;
    found.set(p, { due, next });
  });
  candidates.sort((x, y) => x.score - y.score || (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
  const share = new Map<number, number>();
  for (const c of candidates.slice(0, Math.max(room, 0))) {
    share.set(c.p, (share.get(c.p) ?? 0) + 1);
  }
  const claimed = (
    await Promise.all(
      order
        .filter((p) => share.has(p))
        .map((p) =>
          claimIn(tx, p, stream, options, now, until, share.get(p) as number, undefined, false),
        ),
    )
  )
    .flat()
    .sort((x, y) => Number(x.id) - Number(y.id));
  if (heads) noteHeads(tx, heads, stream, found, share, claimed, now, until, mark);
  if (room <= 0 || claimed.length >= max) return claimed;
  const own = await claimOwn(tx, order, stream, options, max - claimed.length, now, until);
  return [...claimed, ...own];
}

/**
 * What a claim over several partitions saw, for the next one (due-heads.ts): a partition
 * with claimable messages it left, or where it got fewer than it went for (another claim
 * took them, on leases this process does not know), is read again; otherwise nothing
 * there is claimable before the first later message or the lease end of what it took.
 */
function noteHeads(
  tx: RedisTx,
  heads: DueHeads,
  stream: string,
  found: Map<number, { due: number; next: number }>,
  share: Map<number, number>,
  claimed: StreamMessage[],
  now: number,
  until: number,
  mark: number,
): void {
  const got = new Map<number, number>();
  for (const m of claimed) {
    const p = mp(tx, m.id);
    got.set(p, (got.get(p) ?? 0) + 1);
  }
  for (const [p, { due, next }] of found) {
    const wanted = share.get(p) ?? 0;
    const taken = got.get(p) ?? 0;
    const readAgain = due > wanted || taken < wanted;
    heads.saw(stream, p, readAgain ? now : taken > 0 ? Math.min(next, until) : next, mark);
  }
}

function sum(counts: number[]): number {
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Claims up to `max` claimable messages of one partition, by its claim script, then (with
 * `own`) this transaction's own appends there ({@link claimOwn}).
 */
async function claimIn(
  tx: RedisTx,
  P: number,
  stream: string,
  options: ClaimOptions,
  now: number,
  until: number,
  max: number,
  maxHeld: number | undefined,
  own = true,
): Promise<StreamMessage[]> {
  const keys = [K.due(P, stream), K.held(P, stream)];
  const prefix = K.message(P, '');
  const limit = deliveryLimit(options.maxDeliveries);
  const reply = await tx.redis.weftClaim(
    6,
    ...keys,
    K.ids(P, stream),
    K.deadLetters(P),
    fenceKey(`p${P}`),
    K.stream(P, stream),
    String(now),
    String(max),
    options.consumer,
    String(until),
    maxHeld === undefined ? '' : String(maxHeld),
    prefix,
    limit === undefined ? '' : String(limit),
    K.deadLetter(P, ''),
    K.jobMessages(P, ''),
  );
  if (reply.length === 0) return own ? claimOwn(tx, [P], stream, options, max, now, until) : [];
  const ids: string[] = [];
  const previous = new Map<string, string>();
  for (let i = 0; i < reply.length; i += 4) {
    const id = reply[i] as string;
    ids.push(id);
    if (reply[i + 1]) previous.set(id, reply[i + 1] as string);
  }
  tx.onRollback(async () => {
    await tx.redis.weftUnclaim(
      3,
      ...keys,
      K.stream(P, stream),
      options.consumer,
      String(until),
      prefix,
      ...reply,
    );
    // Claimable again, with no notice: this process's next claim reads the partition.
    tx.dueHeads?.touch(stream, P);
  });
  for (const id of ids) tx.forget(K.message(P, id));
  const messages = await readFresh(tx, ids);
  const stored = messages
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((m) => {
      const before = previous.get(m.id);
      return before === undefined ? m : { ...m, previousConsumer: before };
    });
  if (stored.length >= max || !own) return stored;
  return [
    ...stored,
    ...(await claimOwn(tx, [P], stream, options, max - stored.length, now, until)),
  ];
}

/**
 * The claim's second half: the claimable messages this transaction appended itself (the
 * contract's "a claim sees its own transaction's appends", as the SQL stores' claim
 * does), oldest first, up to `max` and within `maxHeld`. Nobody else can see them before
 * the commit, so they are claimed in the overlay: the commit writes them held, and a
 * rollback takes them back with everything else. `partitions` are those to look in (one,
 * or every partition of a store that has several).
 */
async function claimOwn(
  tx: RedisTx,
  partitions: number[],
  stream: string,
  options: ClaimOptions,
  max: number,
  now: number,
  until: number,
): Promise<StreamMessage[]> {
  const picks: { P: number; m: string; at: number }[] = [];
  let mine = 0;
  for (const P of partitions) {
    const heldOwn = tx.ownMembers(K.held(P, stream));
    mine += [...heldOwn.values()].filter((at) => at !== null && at > now).length;
    const appended = tx.ownMembers(K.ids(P, stream));
    if (appended.size === 0) continue;
    for (const [m, at] of tx.ownMembers(K.due(P, stream))) {
      if (at === null || at > now || typeof appended.get(m) !== 'number') continue;
      const lease = heldOwn.get(m);
      if (lease !== undefined && lease !== null && lease > now) continue;
      picks.push({ P, m, at });
    }
  }
  if (picks.length === 0) return [];
  picks.sort((x, y) => x.at - y.at || (x.m < y.m ? -1 : 1));
  let room = max;
  if (options.maxHeld !== undefined) {
    const live = sum(
      await Promise.all(
        partitions.map((P) => tx.redis.zcount(K.held(P, stream), `(${now}`, '+inf')),
      ),
    );
    room = Math.min(room, Math.max(0, Math.floor(options.maxHeld) - live - mine));
  }
  const out: StreamMessage[] = [];
  for (const { P, m } of picks.slice(0, room)) {
    const key = K.message(P, idOf(m));
    const deliveries = Number((await tx.hget(key, 'deliveries')) ?? 0) + 1;
    tx.hset(key, [
      ['deliveries', String(deliveries)],
      ['consumer', options.consumer],
      ['leaseUntil', String(until)],
      ['availableAt', String(until)],
    ]);
    tx.member(K.due(P, stream), m, until);
    tx.member(K.held(P, stream), m, until);
    entry(tx, stream, idOf(m), 'sync');
    const [message] = await readMessages(tx, [idOf(m)]);
    if (message) out.push(message);
  }
  return out;
}

/** Up to `limit` messages claimable at `now`, oldest first, left unclaimed. */
export async function claimableMessages(
  tx: RedisTx,
  stream: string,
  now: number,
  limit: number,
  after?: Pick<StreamMessage, 'id' | 'availableAt'>,
): Promise<StreamMessage[]> {
  const count = countOption(limit, DEFAULT_PAGE);
  if (count === 0) return [];
  const pages = await Promise.all(
    tx.partitions.all().map((p) => claimableIn(tx, p, stream, now, count, after)),
  );
  const members = pages.flat();
  if (pages.length > 1) {
    members.sort((x, y) => x.score - y.score || (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
  }
  return readMessages(
    tx,
    members.slice(0, count).map((m) => idOf(m.at)),
  );
}

/** One partition's part of {@link claimableMessages}: members with their due times. */
async function claimableIn(
  tx: RedisTx,
  P: number,
  stream: string,
  now: number,
  count: number,
  after?: Pick<StreamMessage, 'id' | 'availableAt'>,
): Promise<{ at: string; score: number }[]> {
  const pairs = (page: string[]) => {
    const out: { at: string; score: number }[] = [];
    for (let i = 0; i < page.length; i += 2) {
      out.push({ at: page[i] as string, score: Number(page[i + 1]) });
    }
    return out;
  };
  if (!after) {
    return pairs(
      await tx.redis.zrangebyscore(
        K.due(P, stream),
        '-inf',
        Math.round(now),
        'WITHSCORES',
        'LIMIT',
        0,
        count,
      ),
    );
  }
  // After a message: the set orders by (due time, zero-padded id), so read from its due
  // time on and leave out what sorts at or before it (its ties read first).
  const from = Math.round(after.availableAt);
  const past = member(after.id);
  const picked: { at: string; score: number }[] = [];
  for (let offset = 0; picked.length < count; ) {
    const page = await tx.redis.zrangebyscore(
      K.due(P, stream),
      from,
      Math.round(now),
      'WITHSCORES',
      'LIMIT',
      offset,
      count,
    );
    for (const pair of pairs(page)) {
      if (picked.length >= count) break;
      if (pair.score === from && pair.at <= past) continue;
      picked.push(pair);
    }
    if (page.length < count * 2) break;
    offset += count;
  }
  return picked;
}

/** The fields of a message an ack or a lease extension reads: its holder first. */
const ACK_FIELDS = ['consumer', 'stream', 'deliveries', 'job'];

/**
 * Reads what {@link holding} needs of several messages at once (one `HMGET` each, sent
 * together), so a batch's acks wait on one round trip instead of one after another.
 */
async function readForAcks(tx: RedisTx, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.filter(validId).map((id) => tx.hmget(messageKey(tx, id), ACK_FIELDS)));
}

/**
 * Whether `consumer` holds message `id` of `stream`, as the commit will check it; the
 * message's fields when it does.
 */
async function holding(
  tx: RedisTx,
  stream: string,
  id: string,
  consumer: string,
): Promise<'held' | { consumer: string | null; deliveries: number } | undefined> {
  if (!validId(id)) return undefined;
  const key = messageKey(tx, id);
  // One read of every field an ack needs (the checked holder comes from it).
  const [, storedStream, deliveries] = await tx.hmget(key, ACK_FIELDS);
  const holder = await tx.hgetChecked(key, 'consumer');
  if (storedStream !== stream) return undefined;
  if (holder === consumer) return 'held';
  return { consumer: holder ?? null, deliveries: Number(deliveries ?? 0) };
}

/** Deletes a message and its index entries at commit. */
export async function dropMessage(tx: RedisTx, stream: string, id: string): Promise<void> {
  const P = mp(tx, id);
  const key = K.message(P, id);
  const job = await tx.hget(key, 'job');
  const at = member(id);
  entry(tx, stream, id, 'done');
  tx.deleteKey(key);
  tx.member(K.due(P, stream), at, null);
  tx.member(K.held(P, stream), at, null);
  tx.member(K.ids(P, stream), at, null);
  if (job) tx.member(K.jobMessages(P, job), at, null);
}

/** Completes a message `consumer` holds (the claim machine's CLAIMED → COMPLETE). */
export async function ack(
  tx: RedisTx,
  stream: string,
  id: string,
  consumer: string,
): Promise<boolean> {
  const state = await holding(tx, stream, id, consumer);
  if (state === 'held') {
    await dropMessage(tx, stream, id);
    return true;
  }
  checkMissedAck(stream, id, state);
  return false;
}

/** Acks several messages; returns those `consumer` still held. */
export async function ackMany(
  tx: RedisTx,
  stream: string,
  ids: string[],
  consumer: string,
): Promise<string[]> {
  await readForAcks(tx, ids);
  const out: string[] = [];
  for (const id of ids) if (await ack(tx, stream, id, consumer)) out.push(id);
  return out;
}

/** Extends the leases `consumer` still holds; returns those ids. */
export async function extendLease(
  tx: RedisTx,
  stream: string,
  ids: string[],
  consumer: string,
  leaseMs: number,
): Promise<string[]> {
  const until = after(tx.now(), leaseMs);
  await readForAcks(tx, ids);
  const out: string[] = [];
  for (const id of ids) {
    if ((await holding(tx, stream, id, consumer)) !== 'held') continue;
    const at = member(id);
    const P = mp(tx, id);
    tx.hset(K.message(P, id), [
      ['leaseUntil', String(until)],
      ['availableAt', String(until)],
    ]);
    tx.member(K.due(P, stream), at, until);
    tx.member(K.held(P, stream), at, until);
    entry(tx, stream, id, 'sync');
    out.push(id);
  }
  return out;
}

/** Gives a held message back, claimable after `delayMs`, keeping `lastError` with it. */
export async function release(
  tx: RedisTx,
  stream: string,
  id: string,
  consumer: string,
  delayMs?: number,
  lastError?: ErrorRecord,
): Promise<boolean> {
  if ((await holding(tx, stream, id, consumer)) !== 'held') return false;
  const at = after(tx.now(), delayMs);
  const fields: [string, string | null][] = [
    ['consumer', null],
    ['leaseUntil', null],
    ['availableAt', String(at)],
  ];
  if (lastError !== undefined) fields.push(['lastError', JSON.stringify(lastError)]);
  const P = mp(tx, id);
  tx.hset(K.message(P, id), fields);
  tx.member(K.due(P, stream), member(id), at);
  tx.member(K.held(P, stream), member(id), null);
  entry(tx, stream, id, 'sync');
  tx.notify(`stream:${stream}`, P);
  return true;
}

/** Deletes messages whoever holds them. */
export async function remove(tx: RedisTx, stream: string, ids: string[]): Promise<number> {
  let removed = 0;
  for (const id of new Set(ids)) {
    if (!validId(id)) continue;
    if ((await tx.hget(messageKey(tx, id), 'stream')) !== stream) continue;
    await dropMessage(tx, stream, id);
    removed++;
  }
  return removed;
}

/** Makes expired leases claimable now, after dead-lettering the claimable messages past `maxDeliveries`. */
export async function reclaimExpired(
  tx: RedisTx,
  stream: string,
  options: { maxDeliveries?: number } = {},
): Promise<{ reclaimed: number; deadLettered: number }> {
  const now = tx.now();
  const limit = deliveryLimit(options.maxDeliveries);
  let reclaimed = 0;
  let deadLettered = 0;
  for (const P of tx.partitions.all()) {
    if (limit !== undefined) deadLettered += await buryDue(tx, P, stream, now, limit);
    const expired = await tx.redis.zrangebyscore(K.held(P, stream), '-inf', now);
    let here = 0;
    for (const at of expired) {
      const id = idOf(at);
      const key = K.message(P, id);
      // Checked at commit: a lease extended meanwhile is not taken away.
      const lease = await tx.hgetChecked(key, 'leaseUntil');
      const holder = await tx.hgetChecked(key, 'consumer');
      if (holder === undefined || lease === undefined || Number(lease) > now) continue;
      tx.hset(key, [
        ['consumer', null],
        ['leaseUntil', null],
      ]);
      tx.member(K.held(P, stream), at, null);
      entry(tx, stream, id, 'sync');
      here++;
    }
    if (here > 0) tx.notify(`stream:${stream}`, P);
    reclaimed += here;
  }
  return { reclaimed, deadLettered };
}

/** Messages of one stream (or all), as this transaction sees them. */
export async function countMessages(tx: RedisTx, stream?: string): Promise<number> {
  let total = 0;
  for (const P of tx.partitions.all()) {
    const streams =
      stream === undefined
        ? [
            ...new Set([
              ...(await tx.redis.zrange(K.streams(P), '0', '-1')),
              ...[...tx.ownMembers(K.streams(P)).keys()],
            ]),
          ]
        : [stream];
    for (const name of streams) {
      total += await tx.redis.zcard(K.ids(P, name));
      for (const score of tx.ownMembers(K.ids(P, name)).values()) {
        total += score === null ? -1 : 1;
      }
    }
  }
  return total;
}

/** Messages in id order without claiming them. */
export async function peek(tx: RedisTx, stream: string, limit?: number): Promise<StreamMessage[]> {
  const count = countOption(limit, DEFAULT_PAGE);
  if (count === 0) return [];
  const members = new Set<string>();
  for (const P of tx.partitions.all()) {
    const own = tx.ownMembers(K.ids(P, stream));
    const stored = await tx.redis.zrange(K.ids(P, stream), '0', String(count - 1 + own.size));
    for (const at of stored) members.add(at);
    for (const [at, score] of own) {
      if (score === null) members.delete(at);
      else members.add(at);
    }
  }
  const ids = [...members].sort().slice(0, count).map(idOf);
  return readMessages(tx, ids);
}

/** Every message of a job, waiting or held, in id order (they are in its partition). */
export async function jobMessages(tx: RedisTx, job: string): Promise<StreamMessage[]> {
  const key = K.jobMessages(await tx.partitionOf(job), job);
  const members = new Set(await tx.redis.zrange(key, '0', '-1'));
  for (const [at, score] of tx.ownMembers(key)) {
    if (score === null) members.delete(at);
    else members.add(at);
  }
  return readMessages(tx, [...members].sort().map(idOf));
}

// ── dead letters ────────────────────────────────────────────────────────

/** The dead letter a hash holds; undefined when there is none. */
function toDeadLetter(id: string, fields: Map<string, string>): DeadLetter | undefined {
  const message = toMessage(id, fields);
  if (!message) return undefined;
  return {
    id,
    stream: message.stream,
    payload: message.payload,
    job: message.job,
    deliveries: message.deliveries,
    reason: fields.get('reason') ?? '',
    lastError: message.lastError ?? null,
    createdAt: message.createdAt,
    deadAt: Number(fields.get('deadAt') ?? 0),
  };
}

/** Moves a message to the dead letters at commit; returns the dead letter. */
async function bury(
  tx: RedisTx,
  stream: string,
  id: string,
  reason: string,
  lastError?: ErrorRecord,
): Promise<DeadLetter> {
  const P = mp(tx, id);
  const fields = await tx.hgetall(K.message(P, id));
  const dead = new Map(fields);
  dead.delete('consumer');
  dead.delete('leaseUntil');
  dead.delete('xid');
  dead.set('reason', reason);
  dead.set('deadAt', String(tx.now()));
  if (lastError !== undefined) dead.set('lastError', JSON.stringify(lastError));
  tx.hset(K.deadLetter(P, id), dead);
  tx.member(K.deadLetters(P), member(id), Number(id));
  await noteOwner(tx, dead.get('job'), 'dead', id);
  await dropMessage(tx, stream, id);
  return toDeadLetter(id, dead) as DeadLetter;
}

/** Dead-letters the claimable messages of `stream` delivered `limit` times or more. */
async function buryDue(
  tx: RedisTx,
  P: number,
  stream: string,
  now: number,
  limit: number,
): Promise<number> {
  let buried = 0;
  for (const at of await tx.redis.zrangebyscore(K.due(P, stream), '-inf', now)) {
    const id = idOf(at);
    const key = K.message(P, id);
    // Checked at commit: a claim meanwhile (one more delivery) is a conflict.
    const deliveries = Number((await tx.hgetChecked(key, 'deliveries')) ?? 0);
    await tx.hgetChecked(key, 'availableAt');
    if (deliveries === 0 || deliveries < limit) continue;
    await bury(tx, stream, id, `delivered ${deliveries} times; maxDeliveries is ${limit}`);
    buried++;
  }
  return buried;
}

/** Moves a message `consumer` holds to the dead letters now; undefined when it does not. */
export async function deadLetter(
  tx: RedisTx,
  stream: string,
  id: string,
  consumer: string,
  reason: string,
  lastError?: ErrorRecord,
): Promise<DeadLetter | undefined> {
  if ((await holding(tx, stream, id, consumer)) !== 'held') return undefined;
  return bury(tx, stream, id, reason, lastError);
}

/** The dead letters in id order, of one stream or all. */
export async function listDeadLetters(
  tx: RedisTx,
  stream?: string,
  limit?: number,
): Promise<DeadLetter[]> {
  const page = countOption(limit, DEFAULT_PAGE);
  if (page === 0) return [];
  const members = new Set<string>();
  for (const P of tx.partitions.all()) {
    const key = K.deadLetters(P);
    for (const at of await tx.redis.zrange(key, '0', '-1')) members.add(at);
    for (const [at, score] of tx.ownMembers(key)) {
      if (score === null) members.delete(at);
      else members.add(at);
    }
  }
  const out: DeadLetter[] = [];
  for (const at of [...members].sort()) {
    const dead = await getDeadLetter(tx, idOf(at));
    if (dead && (stream === undefined || dead.stream === stream)) out.push(dead);
    if (out.length >= page) break;
  }
  return out;
}

/** One dead letter, by id. */
export async function getDeadLetter(tx: RedisTx, id: string): Promise<DeadLetter | undefined> {
  if (!validId(id)) return undefined;
  return toDeadLetter(id, await tx.hgetall(K.deadLetter(mp(tx, id), id)));
}

/** Moves a dead letter back to its stream as a new message; returns its new id. */
export async function requeueDeadLetter(tx: RedisTx, id: string): Promise<string | undefined> {
  if (!validId(id)) return undefined;
  const P = mp(tx, id);
  const key = K.deadLetter(P, id);
  // Checked at commit: two requeues of one dead letter cannot both take it.
  if ((await tx.hgetChecked(key, 'stream')) === undefined) return undefined;
  const dead = await getDeadLetter(tx, id);
  if (!dead) return undefined;
  tx.deleteKey(key);
  tx.member(K.deadLetters(P), member(id), null);
  const [newId] = await append(tx, [{ stream: dead.stream, job: dead.job, payload: dead.payload }]);
  return newId;
}

// ── parking (suspend and resume) ────────────────────────────────────────

/**
 * Moves the messages of `job` nobody holds (never claimed, given back, or their lease
 * ran out) into stream `into`, as `{ stream, payload }`; returns how many.
 */
export async function parkMessages(tx: RedisTx, job: string, into: string): Promise<number> {
  const now = tx.now();
  let moved = 0;
  for (const m of await jobMessages(tx, job)) {
    if (m.stream === into) continue;
    const key = messageKey(tx, m.id);
    // Checked at commit: a claim meanwhile keeps its message where it is.
    const holder = await tx.hgetChecked(key, 'consumer');
    const availableAt = Number((await tx.hgetChecked(key, 'availableAt')) ?? m.availableAt);
    // The caller's other operations run beside this one (a worker issues a result's ack
    // with the steps it plans, as a SQL connection would run them in order): an ack that
    // took the message while this read it has completed it, and there is nothing to park.
    if (tx.gone(key)) continue;
    if (holder !== undefined && availableAt > now) continue;
    await dropMessage(tx, m.stream, m.id);
    await append(tx, [
      {
        stream: into,
        job,
        payload: { stream: m.stream, payload: m.payload },
        availableAt: holder === undefined ? Math.max(availableAt, now) : now,
      },
    ]);
    moved++;
  }
  return moved;
}

/**
 * Moves the messages of `job` parked in `from` back to their streams, claimable now, or
 * at their time when it has not come yet; returns how many.
 */
export async function unparkMessages(tx: RedisTx, job: string, from: string): Promise<number> {
  const now = tx.now();
  let moved = 0;
  for (const m of await jobMessages(tx, job)) {
    if (m.stream !== from) continue;
    const parked = m.payload as { stream: string; payload: Json };
    await tx.hgetChecked(messageKey(tx, m.id), 'stream');
    await dropMessage(tx, from, m.id);
    await append(tx, [
      {
        stream: parked.stream,
        job,
        payload: parked.payload,
        ...(m.availableAt > now && { availableAt: m.availableAt }),
      },
    ]);
    moved++;
  }
  return moved;
}
