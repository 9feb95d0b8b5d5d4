/**
 * The one place the collation digits are defined (seed 000): what each digit means, which
 * activity states map to which digit, which digits count as active, and which moves between
 * digits are allowed. Everything else in weft reads these tables.
 */
import type { TaskState } from './states.js';

/** A single digit of a collation key. */
export type CollationDigit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/** The digits by meaning. */
export const COLLATION_DIGITS = {
  pending: 9,
  started: 8,
  errored: 7,
  completed: 6,
  paused: 5,
  released: 4,
  skipped: 3,
  /** Right bookend of a child job inside a compositional key. */
  awaitRight: 2,
  /** Left bookend of a child job inside a compositional key. */
  awaitLeft: 1,
  /** A position past the last activity. */
  none: 0,
} as const satisfies Record<string, CollationDigit>;

/** The meaning of a digit, as a key of {@link COLLATION_DIGITS}. */
export type DigitMeaning = keyof typeof COLLATION_DIGITS;

/** The human name of each digit, as the seed's tables print it. */
export const DIGIT_LABELS: Readonly<Record<CollationDigit, string>> = {
  9: 'Pending',
  8: 'Started',
  7: 'Errored',
  6: 'Completed',
  5: 'Paused',
  4: 'Released',
  3: 'Skipped',
  2: 'Await (right)',
  1: 'Await (left)',
  0: 'N/A',
};

/** Digits of an activity that is still active: pending, started or paused. */
export const ACTIVE_DIGITS: readonly CollationDigit[] = [9, 8, 5];

/** Digits an activity of a flat (non-compositional) key may hold. */
export const ACTIVITY_DIGITS: readonly CollationDigit[] = [9, 8, 7, 6, 5, 4, 3];

/** The states an activity can be in: the task states of core/states plus `paused` and `released`. */
export type ActivityState = TaskState | 'paused' | 'released';

/**
 * Activity state → collation digit. The task states come from TaskFlow's task machine;
 * `paused` and `released` are weft's extra activity states (a hook or await that has
 * finished its first leg and waits to be released).
 *
 * The revert states have no digit of their own in seed 000, so they reuse the digit that
 * gives the right reading:
 * - `REVERTING` → 8 (started): the compensation is running, so the job is active and must
 *   not be read as complete.
 * - `REVERTED` → 3 (skipped): the effect is undone, as if the activity never ran; not
 *   active and not an error (the job's own REVERTED outcome is the flow machine's business).
 * - `REVERT_FAILURE` → 7 (errored): a failed compensation is a terminal error, and
 *   `hasError` must see it.
 *
 * With these choices every legal move of the task machine is a legal collation move.
 */
export const ACTIVITY_STATE_DIGITS: Readonly<Record<ActivityState, CollationDigit>> = {
  PENDING: 9,
  RUNNING: 8,
  SUCCESS: 6,
  FAILURE: 7,
  IGNORE: 3,
  REVERTING: 8,
  REVERTED: 3,
  REVERT_FAILURE: 7,
  paused: 5,
  released: 4,
};

/** The names of the moves a collation digit can make. */
export type CollationMove =
  | 'start'
  | 'complete'
  | 'error'
  | 'pause'
  | 'release'
  | 'skip'
  | 'reenter'
  | 'revert'
  | 'reverted';

/** A move: the digits it may start from and the digit it ends on. */
export interface CollationMoveRule {
  from: readonly CollationDigit[];
  to: CollationDigit;
}

/**
 * The allowed moves. `reenter` sends a finished activity back to pending when a cycle runs
 * it again (the digit moves up); `revert` and `reverted` are the compensation moves that
 * mirror the task machine's SUCCESS|FAILURE → REVERTING → REVERTED. A revert that fails
 * uses `error` (8 → 7). `revert` also starts from 3: an activity a cycle re-entered
 * reverts once per thread it finished in, newest first, so its older thread's revert
 * finds the digit its newer thread's revert left (3, or 7 when that one failed). A paused hook whose timeout nothing handles errs from 5 (5 → 7).
 */
export const COLLATION_MOVES: Readonly<Record<CollationMove, CollationMoveRule>> = {
  start: { from: [9], to: 8 },
  complete: { from: [8], to: 6 },
  error: { from: [8, 5], to: 7 },
  pause: { from: [6], to: 5 },
  release: { from: [5], to: 4 },
  skip: { from: [9], to: 3 },
  reenter: { from: [6, 7, 4, 3], to: 9 },
  revert: { from: [6, 7, 3], to: 8 },
  reverted: { from: [8], to: 3 },
};

/** True when `value` is a single decimal digit. */
export function isCollationDigit(value: number): value is CollationDigit {
  return Number.isInteger(value) && value >= 0 && value <= 9;
}

/** True when a digit marks an active activity (9, 8 or 5). */
export function isActiveDigit(digit: CollationDigit): boolean {
  return ACTIVE_DIGITS.includes(digit);
}

/** True when `move` may start from `from`. */
export function isMoveAllowed(move: CollationMove, from: CollationDigit): boolean {
  return COLLATION_MOVES[move].from.includes(from);
}

/** The move that takes `from` to `to`, or undefined when no move does. */
export function findMove(from: CollationDigit, to: CollationDigit): CollationMove | undefined {
  for (const [name, rule] of Object.entries(COLLATION_MOVES) as [
    CollationMove,
    CollationMoveRule,
  ][]) {
    if (rule.to === to && rule.from.includes(from)) return name;
  }
  return undefined;
}

/** The digit of an activity state. */
export function digitOfState(state: ActivityState): CollationDigit {
  return ACTIVITY_STATE_DIGITS[state];
}
