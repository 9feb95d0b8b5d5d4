/**
 * Running a transaction again when the store aborted it as a conflict: PostgreSQL's
 * deadlock or serialization failure (`StoreError` code `STORE_CONFLICT`), which rolled
 * everything back. Two writers that take the same rows in opposite orders (a pause that
 * parks a job's messages while a worker acks one and then locks the job) meet this; the
 * one PostgreSQL picked as the victim is safe to run again.
 */
import { StoreError } from '../core/errors.js';

/** How many times a conflicting transaction is run before its error is the caller's. */
export const CONFLICT_TRIES = 5;

/** Whether `error` is a transaction the store aborted as a conflict (nothing changed). */
export function isConflict(error: unknown): boolean {
  return error instanceof StoreError && error.code === 'STORE_CONFLICT';
}

/**
 * Runs `transaction` (which must start a transaction of its own each call) until it does
 * not end in a conflict, at most {@link CONFLICT_TRIES} times, waiting a short random
 * while (10–40 ms, doubling) between tries so that the two sides do not meet again.
 */
export async function retryingConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= CONFLICT_TRIES || !isConflict(error)) throw error;
      const wait = (10 + Math.random() * 30) * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
