/**
 * The Redis store's key layout (docs/store-redis.md, section 2), in one place. Every key
 * starts with `weft:` and a hash tag: `{p<N>}` for a partition (a job, everything it
 * owns, and its partition's part of every stream), `{g}` for global records. Redis
 * Cluster places a key by its tag, and one commit script touches one slot, so the tag
 * decides what one step may write together.
 *
 * Phase 1 has one partition, `{p0}`; the functions take the partition already.
 */

/** U+001F, the separator inside hash fields (names never contain it). */
export const SEP = '\u001f';

/** The partition every job lives in while the store runs on one server. */
export const SINGLE_PARTITION = 0;

const tag = (partition: number) => `weft:{p${partition}}`;

/** Keys of one partition. */
export const partitionKeys = {
  /** Hash: a job's record, one field per column. */
  job: (p: number, id: string) => `${tag(p)}:job:${id}`,
  /** Sorted set (score 0): the partition's job ids, in byte (creation) order. */
  jobs: (p: number) => `${tag(p)}:jobs`,
  /** Hash: job id → revision, bumped by every commit that writes what the job owns. */
  revisions: (p: number) => `${tag(p)}:rev`,
  /** Hash: one dimensional thread's counters, `activity␟field` → the counter's decimal text. */
  counters: (p: number, job: string, dimension: string) => `${tag(p)}:ctr:${job}${SEP}${dimension}`,
  /** Hash: one dimensional thread's activity records, `activity␟attribute` → stored text. */
  activities: (p: number, job: string, dimension: string) =>
    `${tag(p)}:act:${job}${SEP}${dimension}`,
  /** Sorted set (score 0): the dimensional threads a job has counters or records in. */
  dimensions: (p: number, job: string) => `${tag(p)}:dims:${job}`,
  /** Sorted set (score 0): the activities a job has records of. */
  activityNames: (p: number, job: string) => `${tag(p)}:acts:${job}`,
  /** Sorted set: one activity's threads by the `updatedAt` of its record there (its newest). */
  newest: (p: number, job: string, activity: string) => `${tag(p)}:newest:${job}${SEP}${activity}`,
  /** Sorted set (score 0): the job ids in one state. */
  jobsInState: (p: number, state: string) => `${tag(p)}:jobs:state:${state}`,
  /** Sorted set (score 0): the job ids of one workflow. */
  jobsOfWorkflow: (p: number, workflow: string) => `${tag(p)}:jobs:wf:${workflow}`,
  /** Sorted set (score 0): the children of one job. */
  jobsOfParent: (p: number, parent: string) => `${tag(p)}:jobs:parent:${parent}`,
  /** Sorted set: the ended jobs by end time (ties by id), for pruning. */
  jobsEnded: (p: number) => `${tag(p)}:jobs:ended`,
  /**
   * Sorted set (score 0): the records outside a job's own keys that name it
   * (`<kind>␟<key>`: timers, waiters, dead letters, idempotency keys, debounce windows),
   * so a prune finds them without reading every one (owned.ts).
   */
  owned: (p: number, job: string) => `${tag(p)}:owned:${job}`,
  /** List: the job's history lines as JSON, `seq` = position + 1. */
  history: (p: number, job: string) => `${tag(p)}:hist:${job}`,
  /** String counter: the partition's history line ids (and `lastStep`). */
  historyIds: (p: number) => `${tag(p)}:histid`,
  /** Hash: seq → JSON journal entry. */
  journal: (p: number, job: string) => `${tag(p)}:jrnl:${job}`,
  /** Hash: a stream message (stream, job, payload, deliveries, consumer, lease, times, error). */
  message: (p: number, id: string) => `${tag(p)}:msg:${id}`,
  /**
   * Sorted set: a stream's messages by the time they are claimable — `availableAt`, or
   * the lease end while one is held — member the padded id (ties in id order).
   */
  due: (p: number, stream: string) => `${tag(p)}:due:${stream}`,
  /** Sorted set: a stream's held messages by lease end (`maxHeld` counts the live ones). */
  held: (p: number, stream: string) => `${tag(p)}:held:${stream}`,
  /** Sorted set: a stream's messages in id order (peek, count). */
  ids: (p: number, stream: string) => `${tag(p)}:ids:${stream}`,
  /**
   * Redis Stream: the chain of custody of one contract stream in this partition — an
   * entry (`id`, `job`) per message handed on, added by the commit that appends it,
   * deleted (`XACK` + `XDEL`) by the one that acks it; its consumer group
   * {@link STREAM_GROUP}'s pending-entries list names each message's holder and its
   * delivery count (docs/store-redis.md, section 3). A mirror: the sorted sets above
   * decide leases and availability.
   */
  stream: (p: number, stream: string) => `${tag(p)}:s:${stream}`,
  /** Sorted set (score 0): the streams that have had messages. */
  streams: (p: number) => `${tag(p)}:streams`,
  /** Sorted set: a job's messages in id order, in any stream. */
  jobMessages: (p: number, job: string) => `${tag(p)}:jobmsg:${job}`,
  /** Hash: a dead letter (its message's fields, `reason`, `deadAt`). */
  deadLetter: (p: number, id: string) => `${tag(p)}:dl:${id}`,
  /** Sorted set: the dead letters by id. */
  deadLetters: (p: number) => `${tag(p)}:dead`,
  /** Sorted set: timer keys by when they are due (ties by key). */
  timers: (p: number) => `${tag(p)}:timers`,
  /** Hash: timer key → the timer as JSON (`at` and its message). */
  timer: (p: number) => `${tag(p)}:timer`,
  /** Hash: worker id → its presence as JSON. */
  workers: (p: number) => `${tag(p)}:workers`,
  /** Hash: signal key → the waiter as JSON (signal-delivery.ts `StoredWaiter`). */
  waiters: (p: number) => `${tag(p)}:waiters`,
  /** Hash: signal key → the signals buffered for it, oldest first, as a JSON list. */
  signals: (p: number) => `${tag(p)}:signals`,
  /** Pub/sub channel of a notice key (`stream:<name>`, `job:<id>`). */
  notice: (key: string) => `weft:n:${key}`,
  /** On a cluster: the sharded channel of a notice key in partition p's slot. */
  shardedNotice: (p: number, key: string) => `${tag(p)}:n:${key}`,
};

/** Global keys. */
export const globalKeys = {
  /** Hash: the layout version (the migration report) and store facts. */
  meta: 'weft:{g}:meta',
  /** Hash: version → JSON definition record. */
  definition: (workflow: string) => `weft:{g}:def:${workflow}`,
  /** Sorted set (score 0): every workflow with a stored definition. */
  definitions: 'weft:{g}:defs',
  /** Hash: `workflow␟key` → the idempotency key's holder and expiry as JSON. */
  idempotency: 'weft:{g}:idem',
  /** Hash: `workflow␟key` → the debounce window as JSON. */
  debounces: 'weft:{g}:debounce',
  /** String: the lock of one record (`schedule:<name>`, `queue:<name>`), a token with a lease. */
  lock: (what: string) => `weft:{g}:lock:${what}`,
  /** Hash: queue name → the queue record as JSON. */
  queues: 'weft:{g}:queues',
  /** Hash: job → its queue item as JSON. */
  queueItems: 'weft:{g}:qitems',
  /** Sorted set: a queue's jobs by enqueue order (seq). */
  queueJobs: (queue: string) => `weft:{g}:qjobs:${queue}`,
  /** String counter: queue item seq. */
  queueSeq: 'weft:{g}:qseq',
  /** Sorted set: the messages ever claimed through a queue (checked one by one when read). */
  queueClaims: (queue: string) => `weft:{g}:qclaims:${queue}`,
  /** Hash: schedule name → the schedule record as JSON. */
  schedules: 'weft:{g}:schedules',
  /** Hash: workflow → its retention policy record as JSON. */
  retention: 'weft:{g}:retention',
  /** String counter: history line ids on a store of several partitions (taken on append). */
  historyIds: 'weft:{g}:histid',
  /** String counter: message ids (taken when a transaction appends, before it commits). */
  messageIds: 'weft:{g}:msgid',
  /**
   * Hash: job id → partition, for a job that does not live where its id hashes to (a
   * child job lives in its parent's partition; partitions.ts). Written before the commit
   * that creates the job; an entry whose job was never created is harmless.
   */
  where: 'weft:{g}:where',
};

/**
 * String (a token): the fence of a split commit on a Redis Cluster (one over several
 * slots), in the slot of hash tag `tag` (`g` or `p<N>`), put on every slot but its
 * primary's. While it is there, every other commit that checks anything in the slot, and
 * every claim there, is refused and runs again (docs/store-redis.md, section 6). It has no
 * lease: its commit's client takes it away, or split-commit.ts resolves it once it is old.
 */
export const fenceKey = (tag: string) => `weft:{${tag}}:fence`;

/**
 * Hash, in a split commit's primary slot: token → the parts still to write, as JSON; the
 * record its primary part writes (its commit point), deleted once every part is written.
 */
export const splitRecordKey = (tag: string) => `weft:{${tag}}:split`;

/** String with an expiry: the mark that split commit `token` was given up (its primary slot). */
export const splitAbortKey = (tag: string, token: string) => `weft:{${tag}}:split:abort:${token}`;

/** The consumer group of every `weft:{p}:s:<stream>` Redis Stream. */
export const STREAM_GROUP = 'weft';

/** The layout version `weft:{g}:meta` records (the Redis store's "schema version"). */
export const LAYOUT_VERSION = 1;

/** A message id as a sorted-set member: zero-padded, so equal scores sort by id. */
export function member(id: string): string {
  return id.padStart(20, '0');
}

/** The message id of a sorted-set member. */
export function idOf(member: string): string {
  return member.replace(/^0+(?=\d)/, '');
}
