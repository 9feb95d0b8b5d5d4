/**
 * Yield points: where long work gives the event loop a turn, so signal handlers, timers
 * (a handler's, a task's timeout), lease heartbeats and I/O callbacks run in time.
 *
 * better-sqlite3 is synchronous: every SQLite store call resolves at once, so a worker
 * draining a backlog chains store calls through microtasks only and, without these,
 * never reaches a macrotask — no signal, no timer, no heartbeat — while the backlog
 * lasts. A yield is a real macrotask (`setImmediate`: after the I/O callbacks, signals and
 * due timers of one loop iteration), taken at most every {@link YIELD_EVERY_MS} of work,
 * so a yield point costs a clock read when it is not due.
 *
 * The rule they keep: no turn of a worker runs synchronous work for long without yielding
 * a macrotask. The SQLite store yields on its own (at its calls, and inside large
 * set-based writes); the worker yields between turns and commits; the engine yields
 * between the steps of a batch and the items of a spread.
 */

/** The longest stretch of work, in ms, a yield point lets run without yielding. */
export const YIELD_EVERY_MS = 20;

/** When the event loop last had a turn through a yield point (performance.now()). */
let lastTurn = performance.now();

/** Resolves in a macrotask of the next event loop turn (setImmediate). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => {
      lastTurn = performance.now();
      resolve();
    });
  });
}

/**
 * A turn of the event loop when the last one was {@link YIELD_EVERY_MS} or more ago;
 * `undefined` (nothing to wait for) otherwise. Await it either way: `await yieldIfDue()`.
 */
export function yieldIfDue(): Promise<void> | undefined {
  return performance.now() - lastTurn >= YIELD_EVERY_MS ? nextTurn() : undefined;
}
