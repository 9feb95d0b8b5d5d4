/**
 * When a job starts: at once, or later (`Client.start`'s `startAt` / `delayMs`, `weft
 * start --at` / `--delay`). A delayed job is created at once — its id, input and view
 * exist, a cancel ends it — and takes its first step at its start time, not before.
 */
import { ValidationError } from '../core/errors.js';
import { MAX_DURATION_MS } from '../graph/durations.js';

/** The options that delay a start. */
export interface StartTimeOptions {
  /** The time it starts at: a Date or epoch ms. A time already past starts it at once. */
  startAt?: Date | number;
  /** Starts it this many ms from now (0 to 1000 days). */
  delayMs?: number;
}

/**
 * The epoch ms a job starts at when it is later than `now`, else undefined (at once). A
 * time that is not one, a delay out of range, or both options at once: ValidationError.
 */
export function delayedStart(options: StartTimeOptions, now: number): number | undefined {
  const { startAt, delayMs } = options;
  if (startAt !== undefined && delayMs !== undefined) {
    throw new ValidationError('give startAt or delayMs, not both', 'start');
  }
  let at: number | undefined;
  if (delayMs !== undefined) {
    if (!Number.isSafeInteger(delayMs) || delayMs < 0 || delayMs > MAX_DURATION_MS) {
      throw new ValidationError(
        `delayMs ${JSON.stringify(delayMs)} is not a whole number of ms from 0 to ${MAX_DURATION_MS} (1000 days)`,
        'start',
      );
    }
    at = now + delayMs;
  } else if (startAt !== undefined) {
    at = startAt instanceof Date ? startAt.getTime() : startAt;
    if (!Number.isSafeInteger(at) || at < 0 || at > now + MAX_DURATION_MS) {
      throw new ValidationError(
        `startAt ${JSON.stringify(startAt)} is not a time within 1000 days from now`,
        'start',
      );
    }
  }
  return at !== undefined && at > now ? at : undefined;
}
