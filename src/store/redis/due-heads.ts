/**
 * What a process last saw at the head of each partition's `due` set of a stream, so a
 * claim over many partitions (a Redis Cluster) reads only the partitions where something
 * may be claimable by now (docs/store-redis.md, section 4).
 *
 * A partition's head is the earliest time a message there becomes claimable: its
 * `availableAt`, or its lease's end while it is held (the `due` set's score, so one
 * number covers a delayed message and a lease that will run out). A claim that reads a
 * partition notes the first score after its own claims, and the lease end of what it
 * claimed there; until that time comes nothing in the partition is claimable, unless
 * another process appends or gives a message back there, and those commits publish a
 * notice on the partition's channel, which marks the partition to be read again. What
 * publishes no notice (a claim rolled back elsewhere, a notice lost while the subscriber
 * reconnected) is caught by reading every partition again once its reading is
 * `MAX_AGE_MS` old.
 *
 * Only a stream this process listens to (`store.subscribe({ kind: 'stream' })`, as every
 * worker does for the streams it claims from) is remembered: without its notices, a
 * claim reads every partition, as before.
 */

/**
 * How old (in real time, whatever the store's clock) a partition's reading may get before
 * a claim reads it again regardless.
 */
export const MAX_AGE_MS = 5_000;

interface Heads {
  /** Per partition: when something there may next be claimable (NaN: read it). */
  next: Float64Array;
  /** Per partition: when it was last read (`performance.now()`). */
  readAt: Float64Array;
  /** Per partition: the {@link Heads.touches} count its last notice made. */
  touchedAt: Float64Array;
  /** Notices heard for the stream so far. */
  touches: number;
}

export class DueHeads {
  private readonly streams = new Map<string, Heads>();
  /** Streams this process hears notices of (the store subscribes and says so). */
  private readonly listened = new Set<string>();

  constructor(
    /** The store's partition count. */
    readonly count: number,
  ) {}

  /** The partitions of `stream` a claim at `now` must read, of `all` (in `all`'s order). */
  toRead(stream: string, all: readonly number[], now: number): number[] {
    const heads = this.listened.has(stream) ? this.streams.get(stream) : undefined;
    if (!heads) return [...all];
    const wall = performance.now();
    return all.filter((p) => {
      const next = heads.next[p] as number;
      return !(next > now) || wall - (heads.readAt[p] as number) >= MAX_AGE_MS;
    });
  }

  /**
   * A mark to take before reading `stream`'s partitions, for {@link saw}: a notice that
   * arrives while the read is on its way is newer than what the read found.
   */
  mark(stream: string): number {
    return this.streams.get(stream)?.touches ?? 0;
  }

  /**
   * Partition `p` of `stream`, read by a read that began at `mark`: nothing there is
   * claimable before `next` (a time of the store's clock). A notice heard since the mark
   * wins.
   */
  saw(stream: string, p: number, next: number, mark: number): void {
    if (!this.listened.has(stream)) return;
    const heads = this.heads(stream);
    if ((heads.touchedAt[p] as number) > mark) return;
    heads.next[p] = next;
    heads.readAt[p] = performance.now();
  }

  /** Something in partition `p` of `stream` (every partition, without `p`) may be due. */
  touch(stream: string, p?: number): void {
    if (!this.listened.has(stream)) return;
    const heads = this.heads(stream);
    heads.touches++;
    if (p === undefined) {
      heads.next.fill(Number.NaN);
      heads.touchedAt.fill(heads.touches);
    } else if (p >= 0 && p < this.count) {
      heads.next[p] = Number.NaN;
      heads.touchedAt[p] = heads.touches;
    }
  }

  /** Forgets every reading (the notice connection reconnected: notices may be lost). */
  touchAll(): void {
    for (const stream of this.streams.keys()) this.touch(stream);
  }

  /**
   * This process now hears (or no longer hears) `stream`'s notices: the store calls it
   * when the stream's first listener subscribed, and when its last one left.
   */
  listening(stream: string, on: boolean): void {
    if (on) {
      this.listened.add(stream);
      this.touch(stream);
    } else {
      this.listened.delete(stream);
      this.streams.delete(stream);
    }
  }

  private heads(stream: string): Heads {
    let heads = this.streams.get(stream);
    if (!heads) {
      heads = {
        next: new Float64Array(this.count).fill(Number.NaN),
        readAt: new Float64Array(this.count),
        touchedAt: new Float64Array(this.count),
        touches: 0,
      };
      this.streams.set(stream, heads);
    }
    return heads;
  }
}
