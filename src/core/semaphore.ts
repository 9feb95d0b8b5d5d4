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
import { CounterOverflowError, InvalidStateError, ValidationError } from './errors.js';

/** Digits in a semaphore. */
export const SEMAPHORE_WIDTH = 15;
/** The value a parent writes when it creates the activity. */
export const SEMAPHORE_INITIAL = 999_000_000_000_000n;
/** Limit of each 6-digit thread counter. */
export const THREAD_COUNTER_LIMIT = 999_999;
/** Limit of each status digit (it counts down from 9 to 0). */
export const STATUS_DIGIT_LIMIT = 9;

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
/** Undoes a refused Leg2 entry. */
export const LEG2_ROLLBACK = -LEG2_ENTRY;

/** The adds of the protocol, by step. */
export const SEMAPHORE_DELTAS = {
  leg1Entry: LEG1_ENTRY,
  leg1Exit: LEG1_EXIT,
  leg2Entry: LEG2_ENTRY,
  leg2Pending: LEG2_PENDING_EXIT,
  leg2Final: LEG2_FINAL_EXIT,
  leg2Rollback: LEG2_ROLLBACK,
} as const;

/** A step of the protocol. */
export type SemaphoreStep = keyof typeof SEMAPHORE_DELTAS;

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

/** Builds a semaphore from its fields (each checked against its range). */
export function buildSemaphore(fields: SemaphoreFields): bigint {
  const digit = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 0 || v > 9) {
      throw new ValidationError(`semaphore ${name} ${v} is not a digit`);
    }
    return String(v);
  };
  const counter = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 0 || v > THREAD_COUNTER_LIMIT) {
      throw new ValidationError(`semaphore ${name} ${v} is outside 0–${THREAD_COUNTER_LIMIT}`);
    }
    return String(v).padStart(6, '0');
  };
  return BigInt(
    digit('leg1Entry', fields.leg1Entry) +
      digit('leg1Exit', fields.leg1Exit) +
      digit('leg2Exit', fields.leg2Exit) +
      counter('leg2Entries', fields.leg2Entries) +
      counter('leg2Exits', fields.leg2Exits),
  );
}

/**
 * The add for `step`, checked against the current value: throws
 * {@link CounterOverflowError} when the add would carry out of its field (a thread counter
 * at 999,999 or a status digit at 0) instead of wrapping silently.
 */
export function checkedSemaphoreDelta(current: bigint, step: SemaphoreStep): bigint {
  const f = parseSemaphore(current);
  const guard = (ok: boolean, counter: string, limit: number) => {
    if (!ok) throw new CounterOverflowError(counter, limit);
  };
  switch (step) {
    case 'leg1Entry':
      guard(f.leg1Entry > 0, 'semaphore leg1 entries', STATUS_DIGIT_LIMIT);
      break;
    case 'leg1Exit':
      guard(f.leg1Exit > 0, 'semaphore leg1 exits', STATUS_DIGIT_LIMIT);
      break;
    case 'leg2Entry':
      guard(f.leg2Entries < THREAD_COUNTER_LIMIT, 'semaphore leg2 entries', THREAD_COUNTER_LIMIT);
      break;
    case 'leg2Pending':
      guard(f.leg2Exits < THREAD_COUNTER_LIMIT, 'semaphore leg2 exits', THREAD_COUNTER_LIMIT);
      break;
    case 'leg2Final':
      guard(f.leg2Exits < THREAD_COUNTER_LIMIT, 'semaphore leg2 exits', THREAD_COUNTER_LIMIT);
      guard(f.leg2Exit > 0, 'semaphore leg2 exit status', STATUS_DIGIT_LIMIT);
      break;
    case 'leg2Rollback':
      if (f.leg2Entries === 0) {
        throw new InvalidStateError('semaphore', formatSemaphore(current), 'leg2Rollback');
      }
      break;
  }
  return SEMAPHORE_DELTAS[step];
}

/** Applies a checked step and returns the new value. */
export function applySemaphoreStep(current: bigint, step: SemaphoreStep): bigint {
  return current + checkedSemaphoreDelta(current, step);
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

/** The Leg2 entry count, which is the index of the current dimensional thread. */
export function leg2Thread(value: bigint): number {
  return parseSemaphore(value).leg2Entries;
}

/** What the Leg2 entry add decided. */
export type Leg2Entry = { admitted: true; thread: number } | { admitted: false; rollback: bigint };

/**
 * Reads the value returned by a Leg2 entry add. Admitted while Leg2 is open, with the
 * dimensional-thread index; refused once Leg2 has closed, with the delta that undoes the add
 * (the caller applies it and acks the message). Throws {@link CounterOverflowError} when the
 * add carried out of the entry counter (the count reads 0 after an entry), after which the
 * caller must apply {@link SEMAPHORE_DELTAS}.leg2Rollback.
 */
export function readLeg2Entry(afterEntry: bigint): Leg2Entry {
  const f = parseSemaphore(afterEntry);
  if (f.leg2Entries === 0) {
    throw new CounterOverflowError('semaphore leg2 entries', THREAD_COUNTER_LIMIT);
  }
  if (f.leg2Exit === 9) return { admitted: true, thread: f.leg2Entries };
  return { admitted: false, rollback: SEMAPHORE_DELTAS.leg2Rollback };
}

/** What a Leg2 exit add (pending or final) left behind. */
export interface Leg2Exit {
  /** Leg2 has closed (third digit 8 or lower): later inputs are refused. */
  closed: boolean;
  /** Dimensional threads exited so far. */
  exits: number;
}

/**
 * Reads the value returned by a Leg2 exit add. Throws {@link CounterOverflowError} when the
 * add carried out of the exit counter (the count reads 0 after an exit).
 */
export function readLeg2Exit(afterExit: bigint): Leg2Exit {
  const f = parseSemaphore(afterExit);
  if (f.leg2Exits === 0) {
    throw new CounterOverflowError('semaphore leg2 exits', THREAD_COUNTER_LIMIT);
  }
  return { closed: f.leg2Exit < 9, exits: f.leg2Exits };
}
