/**
 * A Store wrapper that writes down when each thing happened: every transaction (when it
 * was asked for, when its callback began — the connection taken and BEGIN done —, when
 * the callback ended and when the commit returned) with each statement inside it, and
 * every direct call. `bench/latency-trace.ts` lays these out per workflow step.
 */
import type { Store, StoreTx } from '../../src/store/store.js';

/** One store call: its name and when it started and returned (performance.now()). */
export interface TracedCall {
  name: string;
  t0: number;
  t1: number;
}

/** One transaction, in four instants, and the calls made in it. */
export interface TracedTransaction {
  kind: 'tx';
  side: string;
  /** `store.transaction` called. */
  t0: number;
  /** Its callback began: a connection held, BEGIN done. */
  begun: number;
  /** Its callback returned: the last statement answered. */
  fnEnd: number;
  /** The transaction returned: COMMIT done (and notices sent). */
  t1: number;
  calls: TracedCall[];
}

/** A direct call, outside any transaction (each its own transaction when it writes). */
export interface TracedDirect extends TracedCall {
  kind: 'call';
  side: string;
}

/** Anything else the trace marks: a handler's run, `Client.start`, `Client.result`. */
export interface TracedMark extends TracedCall {
  kind: 'mark';
  side: string;
}

/** An event of the trace. */
export type TraceEvent = TracedTransaction | TracedDirect | TracedMark;

/** Where a trace's events go. */
export class Trace {
  events: TraceEvent[] = [];
  /** False: events are dropped (warm-up). */
  on = false;

  push(event: TraceEvent): void {
    if (this.on) this.events.push(event);
  }

  /** Runs `fn` and marks it as `name` on `side`. */
  async mark<T>(side: string, name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.push({ kind: 'mark', side, name, t0, t1: performance.now() });
    }
  }

  /** Takes the events so far, leaving none. */
  take(): TraceEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}

/** Wraps `store` so its transactions and calls are written to `trace` as `side`. */
export function tracingStore(store: Store, trace: Trace, side: string): Store {
  const wrapTx = (tx: StoreTx, calls: TracedCall[]): StoreTx =>
    new Proxy(tx, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return async (...args: unknown[]) => {
          const t0 = performance.now();
          try {
            return await value.apply(object, args);
          } finally {
            calls.push({ name: property, t0, t1: performance.now() });
          }
        };
      },
    });
  return new Proxy(store, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property === 'transaction') {
        return async <T>(fn: (tx: StoreTx) => Promise<T>) => {
          const t0 = performance.now();
          let begun = t0;
          let fnEnd = t0;
          let calls: TracedCall[] = [];
          const result = await object.transaction(async (tx) => {
            // A backend that runs the callback again keeps the last attempt's calls.
            calls = [];
            begun = performance.now();
            try {
              return await fn(wrapTx(tx, calls));
            } finally {
              fnEnd = performance.now();
            }
          });
          trace.push({ kind: 'tx', side, t0, begun, fnEnd, t1: performance.now(), calls });
          return result;
        };
      }
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      if (property === 'subscribe' || property === 'close') return value.bind(object);
      return async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await value.apply(object, args);
        } finally {
          trace.push({ kind: 'call', side, name: property, t0, t1: performance.now() });
        }
      };
    },
  });
}
