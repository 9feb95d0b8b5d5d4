/**
 * A code-first task's failed attempt, under its retry policy (`core/retry-policy.ts`, the
 * same rules as a graph task's): retried — the work's status records the next attempt
 * and a task message for it is due after the backoff, while the instance's code sees
 * nothing yet — or final, and then the workflow sees the failure (`TaskFailedError`).
 * A failure when the schedule-to-close deadline leaves no room for another attempt ends
 * as a `TimeoutError`. Pure: the runtime appends the message and saves the instance.
 */
import { TimeoutError, toErrorRecord } from '../core/errors.js';
import { decideRetry, type RandomSource, retryPolicy } from '../core/retry-policy.js';
import type { ErrorRecord, NewMessage } from '../store/records.js';
import type { FailureAction } from './actions.js';
import { type Instance, type Status, statusIndexOf } from './instance.js';
import { copyInstance } from './instance-life.js';
import { taskMessage } from './task-message.js';

/** What a failed attempt leads to. */
export type TaskRetryPlan =
  /** A report of an attempt that is not the current one (or of no open task): ignored. */
  | { kind: 'stale' }
  /** Another attempt, due at `at`. */
  | {
      kind: 'retry';
      instance: Instance;
      message: NewMessage;
      attempt: number;
      delayMs: number;
    }
  /** No more attempts: the work fails with `error`. */
  | { kind: 'final'; error: ErrorRecord };

/** The error of a task whose schedule-to-close deadline left no time for another attempt. */
export function deadlineError(status: Status, last?: ErrorRecord): ErrorRecord {
  const after = last ? ` (last error ${last.name}: ${last.message})` : '';
  const at = status.deadline === undefined ? '' : ` (${new Date(status.deadline).toISOString()})`;
  return toErrorRecord(
    new TimeoutError(
      `task ${status.name} did not finish before its schedule-to-close deadline${at}${after}`,
      'schedule_to_close',
    ),
  ) as ErrorRecord;
}

/** Plans what follows attempt `action.attempt` of a task failing with `action.error`. */
export function planTaskRetry(
  instance: Instance,
  action: FailureAction & { attempt: number },
  now: number,
  random: RandomSource,
): TaskRetryPlan {
  const i = statusIndexOf(instance.statuses, action.uuid);
  const status = instance.statuses[i];
  if (status?.type !== 'task' || status.status !== 'scheduled') return { kind: 'stale' };
  if ((status.attempt ?? 1) !== action.attempt) return { kind: 'stale' };
  const decision = decideRetry(
    retryPolicy(status.retry),
    { attempt: action.attempt, error: action.error, now, deadline: status.deadline },
    random,
  );
  if (!decision.retry) {
    const error =
      decision.reason === 'deadline' ? deadlineError(status, action.error) : action.error;
    return { kind: 'final', error };
  }
  const next = copyInstance(instance, now);
  const retried: Status = { ...status, attempt: decision.attempt };
  next.statuses[i] = retried;
  const message = taskMessage(instance.id, status.uuid, status.name, status.input, {
    attempt: decision.attempt,
    clocks: retried,
    availableAt: decision.at,
  });
  return {
    kind: 'retry',
    instance: next,
    message,
    attempt: decision.attempt,
    delayMs: decision.delayMs,
  };
}
