/**
 * A Store wrapper that counts what the engine asks of the store: every contract call,
 * split into calls inside a `transaction` and direct calls (each its own transaction
 * when it writes), and the transactions themselves. It also counts durable commits — a
 * transaction or direct call that changed something (a claim that found nothing changes
 * nothing) — which on SQLite with synchronous=FULL and on PostgreSQL with
 * synchronous_commit=on each wait for a WAL sync. On PostgreSQL every call is a round
 * trip and each transaction adds BEGIN and COMMIT.
 */
import type { Store, StoreTx } from '../../src/store/store.js';

/** Calls that do not write (a direct one is no transaction on SQLite). */
const READS = new Set([
  'getJob',
  'listJobs',
  'getDefinition',
  'listDefinitions',
  'getCounter',
  'listCounters',
  'getActivity',
  'listActivities',
  'countMessages',
  'peek',
  'listDeadLetters',
  'nextTimerAt',
]);

/** True when a call's result says it changed nothing (an empty claim or fire). */
function changedNothing(name: string, result: unknown): boolean {
  return (
    (name === 'claim' || name === 'fireDueTimers') && Array.isArray(result) && result.length === 0
  );
}

/** What was counted. */
export class StoreCounts {
  /** Calls by `tx.<method>` (inside a transaction) or `direct.<method>`. */
  readonly calls = new Map<string, number>();
  /** `store.transaction(...)` calls. */
  transactions = 0;
  /** Direct calls that write (each commits on its own). */
  directWrites = 0;
  /** Direct calls that only read. */
  directReads = 0;
  /** Transactions and direct calls that changed something: each waits for a WAL sync. */
  durableCommits = 0;
  /**
   * Bytes handed to writing calls, as JSON of their arguments (what the store is asked to
   * write); counted only when the counts are made with `measureBytes` (serialising every
   * write's arguments costs time of its own).
   */
  bytesWritten = 0;

  constructor(readonly measureBytes = false) {}

  add(name: string): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
  }

  /** Every call, inside or outside transactions. */
  get totalCalls(): number {
    let sum = 0;
    for (const n of this.calls.values()) sum += n;
    return sum;
  }

  /** PostgreSQL round trips, assuming one per call plus BEGIN and COMMIT per transaction. */
  get roundTrips(): number {
    return this.totalCalls + 2 * this.transactions;
  }

  /** Resets every count. */
  reset(): void {
    this.calls.clear();
    this.transactions = 0;
    this.directWrites = 0;
    this.directReads = 0;
    this.durableCommits = 0;
    this.bytesWritten = 0;
  }
}

/** The UTF-8 size of `args` as JSON (bigints as decimal text). */
function jsonBytes(args: unknown[]): number {
  const text = JSON.stringify(args, (_key, value) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  return Buffer.byteLength(text ?? '');
}

interface Frame {
  wrote: boolean;
}

/** Wraps `store` so every call is counted in `counts`. */
export function countingStore(store: Store, counts: StoreCounts): Store {
  // Each transaction's calls go through its own wrapper, which carries the transaction's
  // frame: no async context tracking, so counting costs little beside the store's I/O.
  const call =
    (
      prefix: string,
      object: object,
      name: string,
      fn: (...a: unknown[]) => unknown,
      frame: Frame | undefined,
    ) =>
    async (...args: unknown[]) => {
      counts.add(`${prefix}.${name}`);
      if (counts.measureBytes && !READS.has(name)) counts.bytesWritten += jsonBytes(args);
      const result = await fn.apply(object, args);
      const wrote = !READS.has(name) && !changedNothing(name, result);
      if (frame) {
        if (wrote) frame.wrote = true;
      } else if (READS.has(name)) {
        counts.directReads++;
      } else {
        counts.directWrites++;
        if (wrote) counts.durableCommits++;
      }
      return result;
    };
  const wrapTx = (tx: StoreTx, frame: Frame): StoreTx =>
    new Proxy(tx, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        return typeof value === 'function' && typeof property === 'string'
          ? call('tx', object, property, value, frame)
          : value;
      },
    });
  return new Proxy(store, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property === 'transaction') {
        return async <T>(fn: (tx: StoreTx) => Promise<T>) => {
          counts.transactions++;
          const frame: Frame = { wrote: false };
          const result = await object.transaction((tx) => fn(wrapTx(tx, frame)));
          if (frame.wrote) counts.durableCommits++;
          return result;
        };
      }
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      if (property === 'subscribe' || property === 'close') return value.bind(object);
      return call('direct', object, property, value, undefined);
    },
  });
}
