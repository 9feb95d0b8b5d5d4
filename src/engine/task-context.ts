/**
 * What a task handler is told about the work it runs, and the idempotency key that names
 * that work: the same on every attempt of the activity, so a side effect keyed by it (a
 * payment, an email) happens once however often the attempt is retried or redelivered.
 */
import type { Json } from '../store/records.js';
import type { ActivityAddress } from './messages.js';

/** What a handler is told about the work it runs. */
export interface TaskContext {
  /**
   * `<job>:<activity>:<dimension>`: the same on every attempt and every delivery of one
   * activity (the dimension is empty outside cycles; a code-first task's activity is its
   * work's id). Hand it to a provider that deduplicates requests.
   */
  idempotencyKey: string;
  job: string;
  activity: string;
  dimension: string;
  /** 1 for the first attempt, 2 for the first retry, … (a redelivery keeps its number). */
  attempt: number;
  /** Aborted when the attempt times out, the lease is lost or the worker shuts down. */
  signal: AbortSignal;
  /**
   * Says the handler is still making progress: a task with a heartbeat timeout fails this
   * attempt (as timed out, then retried by its policy) when it goes longer than that
   * without a call. Cheap (nothing is written); a no-op without a heartbeat timeout.
   */
  heartbeat(): void;
  /** Streams a `pending` result (Leg2 stays open); the final return value closes it. */
  progress(output: Json): Promise<void>;
  /**
   * Sends a signal to a hook of a job (this job when `job` is absent). A signal sent
   * before the hook waits is kept and delivered when it starts waiting.
   */
  sendSignal(name: string, data?: Json, job?: string): Promise<void>;
}

/** The idempotency key of an activity: `<job>:<activity>:<dimension>`, without the attempt. */
export function idempotencyKey(address: ActivityAddress & { revert?: true }): string {
  return `${address.job}:${address.a}:${address.d}${address.revert ? ':revert' : ''}`;
}
