/**
 * The join and skip rule of a graph job (seed 000, Example 2), as one pure decision the
 * engine takes each time an incoming transition of a target settles — fires (is taken) or
 * is not taken — in one dimensional thread:
 *
 * - `join: all` (default) enters the target once every incoming transition settled and
 *   at least one fired: it runs with the inputs that fired, like a conditional merge.
 * - `join: any` enters it at the first one that fires; later ones change nothing.
 * - Either way, a target all of whose incoming transitions settled without one firing is
 *   skipped (digit 3), and its own outgoing transitions then settle as not taken, so the
 *   skip spreads to everything only it reaches — at once, not when the job ends.
 *
 * Skips are eager around cycles too: an exit an iteration does not take is skipped in
 * that iteration, and the next re-entry puts it back to pending (see `reentered` in
 * {@link ./analysis.ts}).
 */

/** What the incoming transitions of a target have done so far, in one dimension. */
export interface JoinCount {
  /** How many incoming transitions the target has. */
  incoming: number;
  /** How many of them have settled, the one settling now included. */
  settled: number;
  /** How many of the settled ones fired. */
  taken: number;
}

/**
 * `enter`: run the target now; `skip`: skip it (and settle its outgoing transitions as not
 * taken); `wait`: nothing to do yet — other transitions are still to settle, or a `join:
 * any` target was already entered.
 */
export type JoinDecision = 'enter' | 'skip' | 'wait';

/** Decides for a target after one of its incoming transitions settled (`taken` or not). */
export function joinDecision(join: 'all' | 'any', count: JoinCount, taken: boolean): JoinDecision {
  const allSettled = count.settled >= count.incoming;
  if (join === 'any') {
    if (taken && count.taken === 1) return 'enter';
    return allSettled && count.taken === 0 ? 'skip' : 'wait';
  }
  if (!allSettled) return 'wait';
  return count.taken > 0 ? 'enter' : 'skip';
}
