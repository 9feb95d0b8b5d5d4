/**
 * How the options of stream, dead-letter and timer operations are read, the same on every
 * backend: batch sizes and page sizes are whole and never negative (a claim takes 1 by
 * default, a page or a timer batch 100), durations never negative, and `maxDeliveries`
 * whole and never negative. The backends put the results into SQL.
 */

/** The default page size of `peek` and `listDeadLetters`, and the default timer batch. */
export const DEFAULT_PAGE = 100;

/** A batch or page size: `value` (else `fallback`) made whole and never negative. */
export function countOption(value: number | undefined, fallback: number): number {
  return Math.max(0, Math.floor(value ?? fallback));
}

/** When a lease, a delay or a ttl taken at `now` ends: `ms` later, never earlier than now. */
export function after(now: number, ms: number | undefined): number {
  return now + Math.max(0, ms ?? 0);
}

/** `maxDeliveries` made whole and never negative; undefined when not given (no limit). */
export function deliveryLimit(maxDeliveries: number | undefined): number | undefined {
  return maxDeliveries === undefined ? undefined : Math.max(0, Math.floor(maxDeliveries));
}

/**
 * Whether a message appended with `claim` is appended held by its claimer: only when it
 * is due (no `availableAt` later than `now`). A claim never takes a message before its
 * time, even one its claimer appends itself; a delayed one is appended unclaimed.
 */
export function appendsHeld(
  message: { claim?: unknown; availableAt?: number },
  now: number,
): boolean {
  return (
    message.claim !== undefined && !(message.availableAt !== undefined && message.availableAt > now)
  );
}
