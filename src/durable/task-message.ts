/**
 * The task message of a code-first work's attempt (or of its revert) on the task's
 * stream: what a worker needs to run it — the handler's name and input, the attempt's
 * number and the clocks it runs under (start-to-close, heartbeat, the schedule-to-close
 * deadline), all read from the work's status.
 */
import { taskStream } from '../engine/messages.js';
import type { Json, NewMessage } from '../store/records.js';
import type { Status } from './instance.js';

/** A task message for a code-first work. */
export interface DurableTaskPayload {
  model: 'durable';
  job: string;
  a: string;
  d: '';
  task: string;
  input: Json;
  attempt: number;
  /** Per-attempt (start-to-close) timeout. */
  timeoutMs?: number;
  /** The longest an attempt may go without `ctx.heartbeat()`. */
  heartbeatTimeoutMs?: number;
  /** Schedule-to-close deadline, epoch ms. */
  deadline?: number;
  /** A run of the work's revert task. */
  revert?: true;
}

/** What of a work's status goes into its task messages. */
export type WorkClocks = Pick<Status, 'timeout_ms' | 'heartbeat_timeout_ms' | 'deadline'>;

/**
 * Attempt `attempt` of a code-first task, or with `revert` the first attempt of its
 * revert; `availableAt` holds a retry back until its backoff has passed.
 */
export function taskMessage(
  job: string,
  uuid: string,
  task: string,
  input: Json,
  options: { revert?: boolean; attempt?: number; clocks?: WorkClocks; availableAt?: number } = {},
): NewMessage {
  const clocks = options.clocks ?? {};
  const payload: DurableTaskPayload = {
    model: 'durable',
    job,
    a: uuid,
    d: '',
    task,
    input,
    attempt: options.attempt ?? 1,
    ...(clocks.timeout_ms !== undefined && { timeoutMs: clocks.timeout_ms }),
    ...(clocks.heartbeat_timeout_ms !== undefined && {
      heartbeatTimeoutMs: clocks.heartbeat_timeout_ms,
    }),
    ...(clocks.deadline !== undefined && { deadline: clocks.deadline }),
    ...(options.revert && { revert: true }),
  };
  return {
    stream: taskStream(task),
    job,
    payload: payload as unknown as Json,
    ...(options.availableAt !== undefined && { availableAt: options.availableAt }),
  };
}
