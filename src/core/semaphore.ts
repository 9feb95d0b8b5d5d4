/**
 * The per-activity semaphore (seed 001): a 15-digit number, kept as a `bigint`, that makes
 * every leg of an activity run its effect exactly once across duplicate deliveries and
 * crashes. The engine adds a fixed delta atomically in the store, then reads the number the
 * add returned; the readings here say what to do next.
 *
 * ```
 *   999000000000000
 *   ^               Leg1 entry status  (9, then 8 on the first entry, 7 on the second…)
 *    ^              Leg1 exit status   (9, then 8 when Leg1 completes)
 *     ^             Leg2 exit status   (9 open, 8 closed)
 *      ^^^^^^       Leg2 entry count   (dimensional threads entered)
 *            ^^^^^^ Leg2 exit count    (dimensional threads exited)
 * ```
 */
import { InvalidStateError, ValidationError } from './errors.js';

/** Digits in a semaphore. */
export const SEMAPHORE_WIDTH = 15;
/** The value a parent writes when it creates the activity. */
export const SEMAPHORE_INITIAL = 999_000_000_000_000n;

/** Leg1 entry (a Leg1 message is dequeued): first digit −1. `HINCRBY -100000000000000`. */
export const LEG1_ENTRY = -100_000_000_000_000n;
/** Leg1 exit (Leg1 finished): second digit −1. `HINCRBY -10000000000000`. */
export const LEG1_EXIT = -10_000_000_000_000n;
/** Leg2 entry (an input arrives): entry count +1. `HINCRBY 1000000`. */
export const LEG2_ENTRY = 1_000_000n;
/** A `pending` Leg2 result: exit count +1, Leg2 stays open. `HINCRBY 1`. */
export const LEG2_PENDING_EXIT = 1n;
/** The final Leg2 result: exit count +1 and third digit 9 → 8 (Leg2 closes). `HINCRBY -999999999999`. */
export const LEG2_FINAL_EXIT = -999_999_999_999n;

/** The five fields of a semaphore. */
export interface SemaphoreFields {
  leg1Entry: number;
  leg1Exit: number;
  leg2Exit: number;
  leg2Entries: number;
  leg2Exits: number;
}

/**
 * Splits a semaphore into its five fields. Throws {@link ValidationError} for a negative
 * value or one with more than 15 digits (a status digit was driven past 0 or 9).
 */
export function parseSemaphore(value: bigint): SemaphoreFields {
  const text = formatSemaphore(value);
  return {
    leg1Entry: Number(text[0]),
    leg1Exit: Number(text[1]),
    leg2Exit: Number(text[2]),
    leg2Entries: Number(text.slice(3, 9)),
    leg2Exits: Number(text.slice(9, 15)),
  };
}

/** The semaphore as exactly 15 digits. */
export function formatSemaphore(value: bigint): string {
  const text = value.toString();
  if (value < 0n || text.length > SEMAPHORE_WIDTH) {
    throw new ValidationError(`semaphore ${text} is not a ${SEMAPHORE_WIDTH}-digit value`);
  }
  return text.padStart(SEMAPHORE_WIDTH, '0');
}

/** What to do after the Leg1 entry add. */
export type Leg1Entry =
  /** `899…`: first entry, run Leg1. */
  | 'run'
  /** `799…` (or `699…`…): Leg1 began before but never finished; clean up and run it again. */
  | 'rerun'
  /** `789…`: Leg1 finished before (the crash came before the ack); verify, ack, do not re-run. */
  | 'done';

/**
 * Reads the value returned by the Leg1 entry add. Throws {@link InvalidStateError} when no
 * entry add has been made (first digit still 9).
 */
export function readLeg1Entry(afterEntry: bigint): Leg1Entry {
  const f = parseSemaphore(afterEntry);
  if (f.leg1Entry === 9) {
    throw new InvalidStateError('semaphore', formatSemaphore(afterEntry), 'leg1 entry read');
  }
  if (f.leg1Exit < 9) return 'done';
  return f.leg1Entry === 8 ? 'run' : 'rerun';
}

/** True while Leg2 accepts input (third digit 9). */
export function isLeg2Open(value: bigint): boolean {
  return parseSemaphore(value).leg2Exit === 9;
}

/** True once Leg2 has closed (third digit below 9): further inputs are refused. */
export function isLeg2Closed(value: bigint): boolean {
  return !isLeg2Open(value);
}
