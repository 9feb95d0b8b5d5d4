/**
 * One attempt of a Redis transaction (docs/store-redis.md, section 1): the reads it made
 * (kept, so a second read of the same field answers the same), the writes it buffered
 * (the overlay every later read of the transaction sees), what the commit must check,
 * and an undo log so a nested transaction that throws takes back only its own writes.
 *
 * Hash fields are the unit: a job's record, its counters and its activity records are
 * hashes (keys.ts). A field in the overlay is a string, or `null` once deleted.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { StoreError } from '../../core/errors.js';
import { CommitPlan, hashTag } from './commit-script.js';
import type { RedisConnection } from './connection.js';
import type { DueHeads } from './due-heads.js';
import { globalKeys, partitionKeys } from './keys.js';
import { Partitions } from './partitions.js';

/** What a commit came to. */
export type CommitOutcome =
  | { status: 'ok' }
  | { status: 'conflict'; key: string; field: string }
  | { status: 'exists'; key: string; field: string };

/**
 * Thrown inside a transaction's callback when the attempt read a state another commit has
 * since replaced (RedisTx.doom): the store runs the callback again; callers never see it.
 */
export class StaleAttempt extends Error {
  constructor(
    readonly key: string,
    readonly field: string,
  ) {
    super(`the transaction read ${key} ${field} before another commit changed it; running again`);
    this.name = 'StaleAttempt';
  }
}

/** The fields of a hash as read: every one (`all`) or those asked for. */
interface Seen {
  all: boolean;
  fields: Map<string, string | null>;
}

/** A history line waiting for the commit, which numbers it. */
interface PendingLine {
  key: string;
  /** The partition's id counter, or (several partitions) the id taken already. */
  idsKey: string;
  tail: string;
  /** True when `idsKey` is the line's id. */
  numbered: boolean;
}

/**
 * What the commit does to a message's Redis Stream entry (docs/store-redis.md, section
 * 3): `add` it (a message appended), `sync` its pending entry with the message's holder
 * (claimed, extended, given back), or mark it `done` (`XACK` + `XDEL`: acked, removed,
 * dead-lettered, pruned).
 */
interface EntryChange {
  kind: 'add' | 'sync' | 'done';
  /** The Redis Stream's key. */
  stream: string;
  id: string;
  job: string;
}

/** The state of one attempt. */
export class RedisTx {
  /** Server values as first read (null: absent). */
  private readonly seen = new Map<string, Seen>();
  /** Buffered hash writes: key → field → value (null: deleted). */
  private readonly dirty = new Map<string, Map<string, string | null>>();
  /** Counter fields this transaction moved: key → field → the stored text it started from. */
  private readonly counterBase = new Map<string, Map<string, string | undefined>>();
  /** Revisions read under a lock: revision key → job → revision. */
  private readonly revisions = new Map<string, Map<string, string>>();
  /** Fields read whose server value the commit checks (a message's holder). */
  private readonly checked = new Map<string, Map<string, string | undefined>>();
  /**
   * Set once a read showed this attempt's reads are not one snapshot (see
   * {@link revisionMoved}): it commits nothing, whatever its callback does with the error,
   * and runs again.
   */
  doomed: { key: string; field: string } | undefined;
  /** Fields that must not exist at commit (journal entries). */
  private readonly fresh: [string, string][] = [];
  /** Sorted-set members added (score) or removed (null), per key. */
  private readonly members = new Map<string, Map<string, number | null>>();
  /** Jobs whose owned data this transaction writes: revision key → jobs. */
  private readonly touched = new Map<string, Set<string>>();
  private readonly lines: PendingLine[] = [];
  /** Notice keys to publish, each with the partition it is about (its channel's slot). */
  private readonly notices = new Map<string, number>();
  /** Jobs this attempt creates, with the partition each is placed in. */
  private readonly placed = new Map<string, Promise<number>>();
  /** Message key → what the commit does to its Redis Stream entry. */
  private readonly entries = new Map<string, EntryChange>();
  /** Keys deleted whole at commit (before the fields written after the delete). */
  private readonly deleted = new Set<string>();
  private readonly undo: (() => void)[] = [];
  /** Locks this attempt holds (key → token), released by its commit or its end. */
  private readonly locks = new Map<string, string>();
  /**
   * What gives back the effects this attempt made at once, outside the commit (a claim:
   * streams.ts), should it roll back; each with the undo-log mark it was made at.
   */
  private readonly compensations: { mark: number; run: () => Promise<void> }[] = [];

  constructor(
    readonly redis: RedisConnection,
    readonly clock: Clock,
    /** The store's partitions (one on a single server unless it was created with more). */
    readonly partitions: Partitions = new Partitions(1),
    /** True on a Redis Cluster: a commit is split by slot, notices are sharded. */
    readonly cluster = false,
    /** What the store last saw at the head of each partition's streams (due-heads.ts). */
    readonly dueHeads?: DueHeads,
  ) {}

  /** The partition a job lives in (see partitions.ts), as this attempt sees it. */
  async partitionOf(job: string): Promise<number> {
    const placed = this.placed.get(job);
    if (placed) return placed;
    if (this.partitions.count === 1) return 0;
    // Looked up once per attempt (a job's partition never changes).
    let found = this.located.get(job);
    if (!found) {
      found = this.partitions.of(this.redis, job);
      this.located.set(job, found);
    }
    return found;
  }

  /**
   * True once this attempt wrote a directory entry (`weft:{g}:where`, outside the commit
   * script): `?wait=N` then waits for `{g}`'s master too.
   */
  wroteDirectory = false;

  /** Partitions looked up in this attempt. */
  private readonly located = new Map<string, Promise<number>>();

  /**
   * Places a job this attempt creates in `partition` (a child's is its parent's); where
   * that is not its id's hash, the commit writes the directory entry too.
   */
  place(job: string, partition: Promise<number>): Promise<void> {
    // Registered at once, before the first await: the writes a unit issues with the
    // create (the job's messages, history, counters) ask for its partition meanwhile.
    const known = this.placed.get(job);
    if (known) return known.then(() => {});
    this.placed.set(job, partition);
    this.undo.push(() => this.placed.delete(job));
    // Written now, before the commit that creates the job: a reader that finds the job
    // finds the entry first; an entry whose job never came is harmless.
    return partition.then(async (p) => {
      if (p !== this.partitions.hashed(job)) {
        this.wroteDirectory = true;
        await this.redis.hset(globalKeys.where, job, String(p));
      }
    });
  }

  /** After the commit: the jobs placed here are known to the store. */
  async committed(): Promise<void> {
    for (const [job, partition] of this.placed) {
      this.partitions.remember(job, await partition);
    }
  }

  /** Whole milliseconds from the store's clock. */
  now(): number {
    return Math.round(this.clock.now());
  }

  // ── reads ─────────────────────────────────────────────────────────────

  private seenOf(key: string): Seen {
    let s = this.seen.get(key);
    if (!s) {
      s = { all: false, fields: new Map() };
      this.seen.set(key, s);
    }
    return s;
  }

  /** The server's value of a field (read once per transaction). */
  private async serverField(key: string, field: string): Promise<string | null> {
    const s = this.seenOf(key);
    if (s.fields.has(field)) return s.fields.get(field) as string | null;
    if (s.all) return null;
    const value = await this.redis.hget(key, field);
    // A concurrent read of the same field may have landed first: keep the first.
    if (!s.fields.has(field)) s.fields.set(field, value);
    return s.fields.get(field) as string | null;
  }

  /** Forgets what was read of a key (a claim's script changed it since). */
  forget(key: string): void {
    this.seen.delete(key);
  }

  /** A field as this transaction sees it: its own write, else the server's value. */
  async hget(key: string, field: string): Promise<string | undefined> {
    const own = this.dirty.get(key);
    if (own?.has(field)) return own.get(field) ?? undefined;
    if (this.deleted.has(key)) return undefined;
    return (await this.serverField(key, field)) ?? undefined;
  }

  /** Several fields of one hash. */
  async hmget(key: string, fields: string[]): Promise<(string | undefined)[]> {
    const s = this.seenOf(key);
    const missing = s.all ? [] : [...new Set(fields)].filter((f) => !s.fields.has(f));
    if (missing.length > 0) {
      const values = await this.redis.hmget(key, ...missing);
      missing.forEach((f, i) => {
        if (!s.fields.has(f)) s.fields.set(f, values[i] ?? null);
      });
    }
    const own = this.dirty.get(key);
    const gone = this.deleted.has(key);
    return fields.map((f) =>
      own?.has(f) ? (own.get(f) ?? undefined) : gone ? undefined : (s.fields.get(f) ?? undefined),
    );
  }

  /** Every field of a hash as this transaction sees it. */
  async hgetall(key: string): Promise<Map<string, string>> {
    const s = this.seenOf(key);
    if (!s.all) {
      const stored = await this.redis.hgetall(key);
      if (!s.all) {
        for (const [f, v] of Object.entries(stored)) if (!s.fields.has(f)) s.fields.set(f, v);
        s.all = true;
      }
    }
    return this.hgetallSync(key);
  }

  /**
   * Reads jobs' revisions and records as one snapshot (`MULTI`), remembering each
   * revision for the commit to check: the Redis form of `SELECT … FOR UPDATE`.
   */
  async lockRead(
    items: { revisionKey: string; job: string; key: string }[],
  ): Promise<Map<string, string>[]> {
    // One MULTI per slot: on a cluster, a MULTI's keys share a slot (a job's two keys do).
    const bySlot = new Map<string, number[]>();
    items.forEach((item, i) => {
      const tag = hashTag(item.key);
      const list = bySlot.get(tag);
      if (list) list.push(i);
      else bySlot.set(tag, [i]);
    });
    const replies: [Error | null, unknown][] = [];
    await Promise.all(
      [...bySlot.values()].map(async (indexes) => {
        const multi = this.redis.multi();
        for (const i of indexes) {
          const item = items[i] as (typeof items)[number];
          multi.hget(item.revisionKey, item.job).hgetall(item.key);
        }
        const got = (await multi.exec()) ?? [];
        indexes.forEach((i, j) => {
          replies[2 * i] = got[2 * j] as [Error | null, unknown];
          replies[2 * i + 1] = got[2 * j + 1] as [Error | null, unknown];
        });
      }),
    );
    return items.map((item, i) => {
      const [revError, revision] = replies[2 * i] ?? [];
      const [allError, stored] = replies[2 * i + 1] ?? [];
      if (revError) throw revError;
      if (allError) throw allError;
      this.remember(item.revisionKey, item.job, (revision as string | null) ?? '0');
      const s = this.seenOf(item.key);
      if (!s.all) {
        for (const [f, v] of Object.entries(stored as Record<string, string>)) {
          if (!s.fields.has(f)) s.fields.set(f, v);
        }
        s.all = true;
      }
      return this.hgetallSync(item.key);
    });
  }

  /** A hash as seen, once it has been read whole. */
  private hgetallSync(key: string): Map<string, string> {
    const out = new Map<string, string>();
    if (!this.deleted.has(key)) {
      for (const [f, v] of this.seenOf(key).fields) if (v !== null) out.set(f, v);
    }
    for (const [f, v] of this.dirty.get(key) ?? []) {
      if (v === null) out.delete(f);
      else out.set(f, v);
    }
    return out;
  }

  /** Remembers a revision for the commit to check (the first one read wins). */
  private remember(revisionKey: string, job: string, revision: string): void {
    let jobs = this.revisions.get(revisionKey);
    if (!jobs) {
      jobs = new Map();
      this.revisions.set(revisionKey, jobs);
    }
    if (!jobs.has(job)) {
      jobs.set(job, revision);
      const map = jobs;
      this.undo.push(() => map.delete(job));
    }
  }

  /**
   * A revision this attempt locked that another commit has moved since, or undefined when
   * none has. Reads inside an attempt are not one snapshot (a lock records a revision, it
   * keeps nobody out), so a later read can show another commit's writes beside the
   * earlier reads' older state; when a locked job's revision moved, the attempt planned
   * from a state that is gone, and a conflict, not the caller, is the answer.
   */
  async revisionMoved(): Promise<{ key: string; field: string } | undefined> {
    for (const [revisionKey, jobs] of this.revisions) {
      const names = [...jobs.keys()];
      if (names.length === 0) continue;
      const now = await this.redis.hmget(revisionKey, ...names);
      for (const [i, job] of names.entries()) {
        if ((now[i] ?? '0') !== jobs.get(job)) return { key: revisionKey, field: job };
      }
    }
    return undefined;
  }

  /**
   * Marks the attempt as planned from a state that is gone (`where`: what moved) and
   * throws: the transaction rolls it back and runs again, as after a conflict at commit.
   */
  doom(where: { key: string; field: string }): never {
    this.doomed = where;
    throw new StaleAttempt(where.key, where.field);
  }

  /** Reads and remembers a job's revision without its record (a create's "absent" check). */
  async lockRevision(revisionKey: string, job: string): Promise<void> {
    if (this.revisions.get(revisionKey)?.has(job)) return;
    const revision = (await this.redis.hget(revisionKey, job)) ?? '0';
    this.remember(revisionKey, job, revision);
  }

  /** Members added or removed in this transaction, for merging into a listing. */
  ownMembers(key: string): ReadonlyMap<string, number | null> {
    return this.members.get(key) ?? new Map();
  }

  /**
   * Every member of a sorted set as this transaction sees it (the server's, with its own
   * adds and removals applied), in byte order: the dimensions of a job, its activities.
   */
  async zmembers(key: string): Promise<string[]> {
    const out = new Set(await this.redis.zrange(key, '0', '-1'));
    for (const [m, score] of this.ownMembers(key)) {
      if (score === null) out.delete(m);
      else out.add(m);
    }
    return [...out].sort(byBytes);
  }

  // ── writes ────────────────────────────────────────────────────────────

  /** Sets (or with null deletes) hash fields in the overlay. */
  hset(key: string, pairs: Iterable<[string, string | null]>): void {
    let own = this.dirty.get(key);
    if (!own) {
      own = new Map();
      this.dirty.set(key, own);
      const created = own;
      this.undo.push(() => {
        if (this.dirty.get(key) === created) this.dirty.delete(key);
      });
    }
    const map = own;
    for (const [field, value] of pairs) {
      const had = map.has(field);
      const before = map.get(field);
      map.set(field, value);
      this.undo.push(() => {
        if (had) map.set(field, before as string | null);
        else map.delete(field);
      });
    }
  }

  /**
   * Moves a counter field: reads it (once), remembers the stored text it started from for
   * the commit to check, and writes the new value. Returns the new value.
   */
  async addCounter(key: string, field: string, delta: bigint, initial?: bigint): Promise<bigint> {
    const current = await this.hget(key, field);
    this.baseOf(key, field);
    const value = (current === undefined ? (initial ?? 0n) : BigInt(current)) + delta;
    this.hset(key, [[field, value.toString()]]);
    return value;
  }

  /** Records the stored text a counter started from (already read by {@link hget}). */
  private baseOf(key: string, field: string): void {
    let fields = this.counterBase.get(key);
    if (!fields) {
      fields = new Map();
      this.counterBase.set(key, fields);
    }
    if (fields.has(field)) return;
    fields.set(field, this.seenOf(key).fields.get(field) ?? undefined);
    const map = fields;
    this.undo.push(() => map.delete(field));
  }

  /** Reads several counter fields of one hash at once, ahead of {@link addCounter}. */
  async prefetch(key: string, fields: string[]): Promise<void> {
    await this.hmget(key, fields);
  }

  /**
   * Takes the lock at `key` for the rest of this attempt, waiting while another holds it
   * (a second locker of a queue or schedule runs after the first, as on the SQL stores).
   * The lock is a key with a lease ({@link LOCK_LEASE_MS}), so a client that dies leaves
   * it for that long at most; the commit checks it still holds it and releases it.
   */
  async lock(key: string): Promise<void> {
    if (this.locks.has(key)) return;
    const token = randomUUID();
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let wait = 2; ; wait = Math.min(50, wait * 2)) {
      if ((await this.redis.set(key, token, 'PX', LOCK_LEASE_MS, 'NX')) === 'OK') break;
      if (Date.now() > deadline) {
        throw new StoreError(`waited ${LOCK_WAIT_MS} ms for the lock ${key}; nothing was written`, {
          code: 'STORE_CONFLICT',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.locks.set(key, token);
  }

  /** Releases the locks this attempt holds (it rolled back or runs again). */
  async releaseLocks(): Promise<void> {
    const held = [...this.locks];
    this.locks.clear();
    for (const [key, token] of held) {
      await this.redis.weftCommit(1, [key, 'own', '1', token, '|', 'unlock', '1', token]);
    }
  }

  /** Deletes a key whole at commit (a message acked); fields set later are written after. */
  deleteKey(key: string): void {
    const own = this.dirty.get(key);
    this.dirty.delete(key);
    const was = this.deleted.has(key);
    this.deleted.add(key);
    this.undo.push(() => {
      if (!was) this.deleted.delete(key);
      if (own) this.dirty.set(key, own);
    });
  }

  /** True when this attempt deleted `key` and wrote nothing to it since. */
  gone(key: string): boolean {
    return this.deleted.has(key) && !this.dirty.has(key);
  }

  /** Something to run should this attempt roll back (see {@link compensate}). */
  onRollback(run: () => Promise<void>): void {
    // A place of its own in the undo log: a savepoint taken before it is below its mark.
    this.undo.push(() => {});
    this.compensations.push({ mark: this.undo.length - 1, run });
  }

  /**
   * Gives back the effects made at once since `mark` (all of them by default), newest
   * first: the attempt rolled back, or a nested transaction did.
   */
  async compensate(mark = 0): Promise<void> {
    while ((this.compensations.at(-1)?.mark ?? -1) >= mark) {
      const last = this.compensations.pop() as { run: () => Promise<void> };
      await last.run();
    }
  }

  /** Adds or (score null) removes a sorted-set member at commit. */
  member(key: string, member: string, score: number | null): void {
    let own = this.members.get(key);
    if (!own) {
      own = new Map();
      this.members.set(key, own);
    }
    const map = own;
    const had = map.has(member);
    const before = map.get(member);
    map.set(member, score);
    this.undo.push(() => {
      if (had) map.set(member, before as number | null);
      else map.delete(member);
    });
  }

  /**
   * What the commit does to message `messageKey`'s Redis Stream entry. A change folds
   * into the one before it: a message appended and then claimed or acked in the same
   * transaction is added (held or not) or never logged at all.
   */
  entry(messageKey: string, change: EntryChange): void {
    const before = this.entries.get(messageKey);
    let next: EntryChange | undefined = change;
    if (before?.kind === 'add') next = change.kind === 'done' ? undefined : before;
    if (next === before) return;
    if (next) this.entries.set(messageKey, next);
    else this.entries.delete(messageKey);
    this.undo.push(() => {
      if (before) this.entries.set(messageKey, before);
      else this.entries.delete(messageKey);
    });
  }

  /** Marks a job's owned data as written: the commit bumps its revision. */
  touch(revisionKey: string, job: string): void {
    let jobs = this.touched.get(revisionKey);
    if (!jobs) {
      jobs = new Set();
      this.touched.set(revisionKey, jobs);
    }
    if (jobs.has(job)) return;
    jobs.add(job);
    const set = jobs;
    this.undo.push(() => set.delete(job));
  }

  /**
   * A field whose server value (as read) the commit checks is unchanged: what an ack or
   * a lease extension decided from (the message's holder).
   */
  async hgetChecked(key: string, field: string): Promise<string | undefined> {
    const own = this.dirty.get(key);
    if (own?.has(field) || this.deleted.has(key)) return this.hget(key, field);
    const value = (await this.serverField(key, field)) ?? undefined;
    let fields = this.checked.get(key);
    if (!fields) {
      fields = new Map();
      this.checked.set(key, fields);
    }
    if (!fields.has(field)) {
      fields.set(field, value);
      const map = fields;
      this.undo.push(() => map.delete(field));
    }
    return value;
  }

  /** A field that must not exist when the transaction commits. */
  requireNew(key: string, field: string): void {
    this.fresh.push([key, field]);
    this.undo.push(() => this.fresh.pop());
  }

  /** A history line for the commit to number and append. */
  appendLine(key: string, idsKey: string, tail: string, numbered = false): void {
    this.lines.push({ key, idsKey, tail, numbered });
    this.undo.push(() => this.lines.pop());
  }

  /**
   * A notice key (`stream:<name>`, `job:<id>`) to publish when the commit lands; on a
   * cluster, on the sharded channel of `partition` (where the message or job is).
   */
  notify(key: string, partition = 0): void {
    const p = this.cluster ? partition : 0;
    const at = `${p}\u0000${key}`;
    if (this.notices.has(at)) return;
    this.notices.set(at, p);
    this.undo.push(() => this.notices.delete(at));
  }

  // ── savepoints and commit ─────────────────────────────────────────────

  /** A savepoint: how far the undo log reaches now. */
  mark(): number {
    return this.undo.length;
  }

  /** Takes back every write made since `mark`. */
  rollbackTo(mark: number): void {
    while (this.undo.length > mark) (this.undo.pop() as () => void)();
  }

  /** The commit's checks and writes. */
  plan(): CommitPlan {
    const plan = new CommitPlan();
    for (const [revisionKey, jobs] of this.revisions) {
      for (const [job, revision] of jobs) plan.checkRevision(revisionKey, job, revision);
    }
    for (const [key, fields] of this.counterBase) {
      for (const [field, base] of fields) plan.checkField(key, field, base);
    }
    for (const [key, field] of this.fresh) plan.checkNew(key, field);
    for (const [key, fields] of this.checked) {
      for (const [field, value] of fields) plan.checkField(key, field, value);
    }
    for (const [key, token] of this.locks) plan.checkLock(key, token);
    // An entry is acked and deleted before its message's hash (which names it) goes.
    for (const [key, change] of this.entries) {
      if (change.kind === 'done') plan.streamDone(change.stream, key);
    }
    for (const key of this.deleted) plan.del(key);
    for (const [key, fields] of this.dirty) {
      const bases = this.counterBase.get(key);
      const sets: [string, string][] = [];
      const deletes: string[] = [];
      for (const [field, value] of fields) {
        if (value === null) {
          deletes.push(field);
          continue;
        }
        const delta = bases?.has(field) ? int64Delta(bases.get(field), value) : undefined;
        if (delta !== undefined) plan.hincr(key, field, delta);
        else sets.push([field, value]);
      }
      if (sets.length > 0) plan.hset(key, sets);
      if (deletes.length > 0) plan.hdel(key, deletes);
    }
    for (const [key, members] of this.members) {
      for (const [member, score] of members) {
        if (score === null) plan.zrem(key, member);
        else plan.zadd(key, score, member);
      }
    }
    const now = this.now();
    for (const [key, change] of this.entries) {
      if (change.kind === 'add') plan.streamAdd(change.stream, key, change.id, change.job, now);
      else if (change.kind === 'sync') plan.streamSync(change.stream, key, now);
    }
    for (const [revisionKey, jobs] of this.touched) {
      for (const job of jobs) plan.bump(revisionKey, job);
    }
    for (const line of this.lines) {
      if (line.numbered) plan.historyWithId(line.key, line.idsKey, line.tail);
      else plan.history(line.key, line.idsKey, line.tail);
    }
    for (const [key, token] of this.locks) plan.unlock(key, token);
    for (const [at, partition] of this.notices) {
      const key = at.slice(at.indexOf('\u0000') + 1);
      if (this.cluster) plan.publishSharded(partitionKeys.shardedNotice(partition, key));
      else plan.publish(partitionKeys.notice(key));
    }
    return plan;
  }
}

/** How long a lock lives without its holder committing (a client that died). */
export const LOCK_LEASE_MS = 30_000;

/** How long a transaction waits for a lock before it gives up. */
export const LOCK_WAIT_MS = 60_000;

/** Byte order of strings as Redis sorts members of equal score (UTF-16 order is close enough for names). */
export function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const fits = (n: bigint) => n >= INT64_MIN && n <= INT64_MAX;

/**
 * The delta that takes a counter from `base` (absent: 0) to `value` by `HINCRBY`, when
 * Redis can do that add exactly (both ends and the delta in 64 bits); else undefined and
 * the commit writes the exact decimal with `HSET`.
 */
function int64Delta(base: string | undefined, value: string): bigint | undefined {
  const from = base === undefined ? 0n : BigInt(base);
  const to = BigInt(value);
  const delta = to - from;
  return fits(from) && fits(to) && fits(delta) ? delta : undefined;
}
