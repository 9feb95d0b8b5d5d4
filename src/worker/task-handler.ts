/**
 * What a user writes for a task: an async function from input to output, given a
 * context with an idempotency key and an abort signal.
 */
import type { Json } from '../store/records.js';

/** What a handler is told about the work it runs. */
export interface TaskContext {
  /**
   * `<job>:<activity>:<dimension>`: the same on every attempt of this activity in this
   * job (and dimensional thread), so a payment provider given it charges once however
   * often the handler runs. The attempt is {@link TaskContext.attempt}.
   */
  idempotencyKey: string;
  job: string;
  activity: string;
  dimension: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborted when the attempt times out, the lease is lost or the worker shuts down. */
  signal: AbortSignal;
  /** Streams a `pending` result (Leg2 stays open); the final return value closes it. */
  progress(output: Json): Promise<void>;
  /**
   * Sends a signal to a hook of a job (this job when `job` is absent). A signal sent
   * before the hook waits is kept and delivered when it starts waiting.
   */
  sendSignal(name: string, data?: Json, job?: string): Promise<void>;
}

/** The idempotency key of an activity's work: the same on every attempt. */
export function idempotencyKey(job: string, activity: string, dimension: string): string {
  return `${job}:${activity}:${dimension}`;
}

/** A task handler. Its return value must be JSON-safe. */
export type TaskHandler = (input: Json, context: TaskContext) => Promise<unknown> | unknown;

/** Handlers by task name: the default export of a handlers module. */
export type TaskHandlers = Record<string, TaskHandler>;
