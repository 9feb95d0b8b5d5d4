/**
 * Partitions (docs/store-redis.md, sections 2 and 6): where a job, everything it owns and
 * its messages live. A store has a fixed number of partitions, chosen when it is first
 * created and kept in `weft:{g}:meta` (`partitions`): 1 on one server, 16 by default on a
 * Redis Cluster (`?partitions=N`). Partition N's keys share the hash tag `{pN}`, so one
 * partition is one cluster slot, and the partitions spread over the cluster's masters.
 *
 * - A job's partition is a hash (FNV-1a) of its id's **root** — the id up to its first
 *   `.` — modulo the count.
 * - A child job lives in its parent's partition, so the step that creates it writes one
 *   slot. The engines name a child after its parent (`<parent>.a`, `<parent>.0.0.1`), so
 *   its root is its parent's and the hash already puts it there: no lookup, no race. A
 *   child whose id is not so named gets an entry in the directory `weft:{g}:where`,
 *   written before the job is (an entry whose job never came is harmless).
 * - A signal key's waiter and buffered signals live in the partition its key hashes to
 *   (a signal names only its key), so registering a waiter from a step, or delivering a
 *   signal to it, commits to two slots: the key's and the job's.
 * - A message's id carries its partition: ids are `seq × count + partition`, `seq` from
 *   the one `weft:{g}:msgid` counter, so ids still grow in append order and an ack, which
 *   names only the id, finds the message's slot without a lookup. With one partition an
 *   id is the sequence itself, as before.
 */
import type { RedisConnection } from './connection.js';
import { globalKeys } from './keys.js';

/** The partition count a new store on a Redis Cluster gets unless the URL says. */
export const DEFAULT_CLUSTER_PARTITIONS = 16;

/** How many directory answers a store keeps (they never change: a job never moves). */
const KNOWN_LIMIT = 100_000;

/** FNV-1a, 32 bits, of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** One store's partitions. */
export class Partitions {
  /** Jobs whose partition the directory gave (or this store created), job → partition. */
  private readonly known = new Map<string, number>();

  constructor(
    /** The partition count (fixed for the store's life). */
    readonly count: number,
  ) {}

  /** Every partition, 0 to count − 1. */
  all(): number[] {
    return Array.from({ length: this.count }, (_, p) => p);
  }

  /** The partition a job's id hashes to: its root's (the id up to its first `.`). */
  hashed(job: string): number {
    if (this.count === 1) return 0;
    const dot = job.indexOf('.');
    return fnv1a(dot < 0 ? job : job.slice(0, dot)) % this.count;
  }

  /**
   * The partition of a signal key's waiter and buffered signals: a hash of the whole key
   * (a signal names only its key, not the job waiting on it).
   */
  ofKey(key: string): number {
    return this.count === 1 ? 0 : fnv1a(key) % this.count;
  }

  /** The partition of a message, from its id. */
  ofMessage(id: string): number {
    return this.count === 1 ? 0 : Number(BigInt(id) % BigInt(this.count));
  }

  /** The id of the message with sequence number `seq` in `partition`. */
  messageId(seq: number, partition: number): string {
    return this.count === 1
      ? String(seq)
      : String(BigInt(seq) * BigInt(this.count) + BigInt(partition));
  }

  /** Remembers a job's partition (the directory said, or this store created it). */
  remember(job: string, partition: number): void {
    if (this.known.size >= KNOWN_LIMIT) this.known.clear();
    this.known.set(job, partition);
  }

  /** A job's partition: the directory's entry, else its id's hash. */
  async of(redis: RedisConnection, job: string): Promise<number> {
    if (this.count === 1) return 0;
    const known = this.known.get(job);
    if (known !== undefined) return known;
    const listed = await redis.hget(globalKeys.where, job);
    if (listed === null) return this.hashed(job);
    const partition = Number(listed);
    this.remember(job, partition);
    return partition;
  }
}
