/**
 * task: sends its input to a worker handler by name. Leg1 starts it (9→8) and enqueues
 * the work; each worker response is a Leg2 input. A failed attempt the retry policy
 * retries (`core/retry-policy.ts`, default three attempts) is a `pending` response that
 * re-enqueues the work, not claimable before its backoff; the final result closes Leg2
 * and ends the activity. With a schedule-to-close timeout, a durable timer ends it at
 * its deadline whatever its attempts are doing.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import { TimeoutError, toErrorRecord } from '../../core/errors.js';
import {
  decideRetry,
  type RetryDecision,
  type RetryPolicy,
  retryPolicy,
} from '../../core/retry-policy.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { parseDuration } from '../../graph/durations.js';
import { shortId } from '../../graph/scopes.js';
import { description, duration, expression, join } from '../../graph/workflow-document.js';
import type { ErrorRecord, Json } from '../../store/records.js';
import { evaluateOrFail, finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import {
  type ActivityAddress,
  ENGINE_STREAM,
  type TaskMessage,
  type TaskResponse,
  taskStream,
} from '../messages.js';
import { RETRY_DURATIONS, retryDocument, retryProblem, retrySettings } from '../retry-document.js';
import type { Step } from '../step.js';
import { handles } from '../transitions.js';
import { defineKind } from './activity-kind.js';

/** A compiled task. */
export interface CompiledTask extends CompiledActivityBase {
  kind: 'task';
  /** The handler name. */
  task: string;
  /** JSONata producing the handler's input; absent = the job input. */
  input?: string;
  /** Retry policy as written, defaults filled in (absent: the default policy). */
  retry?: RetryPolicy;
  /** Per-attempt (start-to-close) timeout. */
  timeoutMs?: number;
  /** Timeout across all attempts and their backoffs (schedule-to-close), from Leg1. */
  scheduleToCloseMs?: number;
  /** The longest a running attempt may go without `ctx.heartbeat()`. */
  heartbeatTimeoutMs?: number;
  /** The handler that undoes it (TaskFlow's revert), run when the job reverts. */
  revert?: string;
}

/**
 * The policy a compiled task runs under: its own, or the default. Versions compiled
 * before 0.2 stored `maxDelayMs` and no jitter or error names.
 */
export function taskRetryPolicy(activity: CompiledTask): RetryPolicy {
  const stored = activity.retry as (Partial<RetryPolicy> & { maxDelayMs?: number }) | undefined;
  if (!stored) return retryPolicy();
  const policy = retryPolicy({ attempts: stored.attempts, backoff: stored.backoffMs });
  return {
    ...policy,
    factor: stored.factor ?? policy.factor,
    maxBackoffMs: stored.maxBackoffMs ?? stored.maxDelayMs ?? policy.maxBackoffMs,
    jitter: stored.jitter ?? 0,
    nonRetryable: stored.nonRetryable ?? [],
  };
}

/** What a task attempt's message carries of its activity's timeouts. */
export function attemptTimeouts(
  activity: CompiledTask,
  startedAt: number | null | undefined,
): Pick<TaskMessage, 'timeoutMs' | 'heartbeatTimeoutMs' | 'deadline'> {
  return {
    ...(activity.timeoutMs !== undefined && { timeoutMs: activity.timeoutMs }),
    ...(activity.heartbeatTimeoutMs !== undefined && {
      heartbeatTimeoutMs: activity.heartbeatTimeoutMs,
    }),
    ...(activity.scheduleToCloseMs !== undefined &&
      startedAt != null && { deadline: startedAt + activity.scheduleToCloseMs }),
  };
}

function ms(value: unknown): number {
  // Only called on values the checks accepted.
  return parseDuration(value) ?? 0;
}

function sendTask(step: Step, message: TaskMessage, availableAt?: number) {
  step.send({
    stream: taskStream(message.task),
    job: message.job,
    payload: message as unknown as Json,
    ...(availableAt !== undefined ? { availableAt } : {}),
  });
}

/** The key of a task's schedule-to-close timer. */
function deadlineKey(address: ActivityAddress): string {
  return `task:${address.job}:${address.a}:${address.d}`;
}

const TIMEOUT_FIELDS = ['timeout', 'schedule_to_close_timeout', 'heartbeat_timeout'] as const;

/** The task kind. */
export const task = defineKind({
  kind: 'task',
  document: z.strictObject({
    kind: z.literal('task'),
    task: z.string().min(1).optional().meta({
      description: 'Handler name (default: the activity id, short inside a scope).',
    }),
    input: expression.optional(),
    retry: retryDocument.optional(),
    timeout: duration.optional().meta({
      description:
        'Per-attempt (start-to-close) timeout: an attempt running longer fails and is retried.',
    }),
    schedule_to_close_timeout: duration.optional().meta({
      description:
        "Timeout across all attempts and the waits between them, from the task's start: when it passes the task fails with a timeout.",
    }),
    heartbeat_timeout: duration.optional().meta({
      description:
        'An attempt that goes longer than this without calling ctx.heartbeat() fails as timed out (and is retried).',
    }),
    revert: z.string().min(1).optional().meta({
      description:
        'Handler that undoes this task when the job reverts (on_failure: revert); it gets { input, output, error } of the run.',
    }),
    join: join.optional(),
    description: description.optional(),
  }),
  expressions: ['input'],
  durations: ['timeout', 'schedule_to_close_timeout', 'heartbeat_timeout', ...RETRY_DURATIONS],
  compile(doc, base): CompiledTask {
    return {
      ...base,
      kind: 'task',
      task: doc.task ?? shortId(base.id),
      ...(doc.input !== undefined && { input: doc.input }),
      ...(doc.retry && { retry: retryPolicy(retrySettings(doc.retry, base.id)) }),
      ...(doc.timeout !== undefined && { timeoutMs: ms(doc.timeout) }),
      ...(doc.schedule_to_close_timeout !== undefined && {
        scheduleToCloseMs: ms(doc.schedule_to_close_timeout),
      }),
      ...(doc.heartbeat_timeout !== undefined && {
        heartbeatTimeoutMs: ms(doc.heartbeat_timeout),
      }),
      ...(doc.revert !== undefined && { revert: doc.revert }),
    };
  },
  outcomeProblem(on, activity) {
    return on === 'timeout' && TIMEOUT_FIELDS.every((f) => activity.fields[f] === undefined)
      ? `on: timeout from ${JSON.stringify(activity.id)}, which sets no timeout (timeout, schedule_to_close_timeout or heartbeat_timeout)`
      : undefined;
  },
  check({ id, fields }, _facts, problems) {
    const policy = fields.retry as Record<string, unknown> | undefined;
    if (!policy || typeof policy !== 'object') return;
    const parsed = retryDocument.safeParse(policy);
    if (!parsed.success) return;
    let problem: string | undefined;
    try {
      problem = retryProblem(retrySettings(parsed.data, id));
    } catch {
      return; // a bad duration, reported by the duration checks
    }
    if (problem) {
      const field = policy.max_backoff !== undefined ? 'max_backoff' : 'maxDelay';
      problems.add(['activities', id, 'retry', field], problem);
    }
  },
  respond: { timeout: respondTaskDeadline },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    const evaluated = activity.input
      ? await evaluateOrFail(
          step,
          address,
          activity.input,
          `activity ${activity.id} (input)`,
          activity.scope,
        )
      : { value: step.job.input };
    if (!evaluated) return;
    const input = evaluated.value;
    const now = step.clock.now();
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'RUNNING',
      input,
      attempt: 1,
      startedAt: now,
      finishedAt: null,
    });
    sendTask(step, {
      ...address,
      task: activity.task,
      input,
      attempt: 1,
      ...attemptTimeouts(activity, now),
    });
    if (activity.scheduleToCloseMs !== undefined) {
      step.scheduleTimer({
        key: deadlineKey(address),
        at: now + activity.scheduleToCloseMs,
        message: {
          stream: ENGINE_STREAM,
          job: step.job.id,
          payload: { k: 'timeout', ...address } as unknown as Json,
        },
      });
    }
  },
});

/** The error a task ends with when its schedule-to-close timeout leaves no time. */
function deadlineError(activity: CompiledTask, last?: ErrorRecord): ErrorRecord {
  const after = last ? ` (last error ${last.name}: ${last.message})` : '';
  return toErrorRecord(
    new TimeoutError(
      `task ${activity.task} (activity ${activity.id}) did not finish within its schedule_to_close_timeout of ${activity.scheduleToCloseMs} ms${after}`,
      'schedule_to_close',
    ),
  ) as ErrorRecord;
}

/** Leg2 of a task: one worker response. Returns false when Leg2 was already closed. */
export async function respondTask(step: Step, response: TaskResponse): Promise<boolean> {
  const address = { job: response.job, a: response.a, d: response.d };
  // A response for an attempt other than the current one is stale (a second delivery of
  // an earlier attempt's work): it must not reach Leg2, or it would schedule a retry again.
  const current = await step.record(response.a, response.d);
  if (current && current.attempt !== response.attempt) return false;
  const activity = step.activity(response.a) as CompiledTask;
  const now = step.clock.now();
  let decision: RetryDecision | undefined;
  if (response.status === 'error') {
    const deadline = attemptTimeouts(activity, current?.startedAt).deadline;
    decision = decideRetry(
      taskRetryPolicy(activity),
      { attempt: response.attempt, error: response.error, now, deadline },
      step.random,
    );
  }
  const exit = response.status === 'pending' || decision?.retry ? 'pending' : 'final';
  if ((await passLeg2(step, address, exit)) === undefined) return false;
  if (response.status === 'pending') {
    step.putActivity({ ...record(response), output: response.output ?? null });
    return true;
  }
  if (decision?.retry) {
    step.putActivity({
      ...record(response),
      attempt: decision.attempt,
      error: response.error ?? null,
    });
    step.noteRetry(response.a, decision.delayMs);
    sendTask(
      step,
      {
        ...address,
        task: activity.task,
        input: current?.input ?? null,
        attempt: decision.attempt,
        ...attemptTimeouts(activity, current?.startedAt),
      },
      decision.at,
    );
    return true;
  }
  if (activity.scheduleToCloseMs !== undefined) step.cancelTimer(deadlineKey(address));
  if (response.status === 'success') {
    await finishActivity(step, address, { outcome: 'success', output: response.output ?? null });
    return true;
  }
  const outOfTime = decision?.retry === false && decision.reason === 'deadline';
  const error = outOfTime ? deadlineError(activity, response.error) : response.error;
  const timedOut = outOfTime || response.timedOut === true;
  const outcome = timedOut && handles(step, response.a, 'timeout') ? 'timeout' : 'error';
  await finishActivity(step, address, { outcome, ...(error ? { error } : {}) });
  return true;
}

/**
 * Leg2 of a task whose schedule-to-close timeout passed before a final result: it ends
 * as timed out (`on: timeout` when one is taken). False when Leg2 was already closed; a
 * result that comes later is refused.
 */
async function respondTaskDeadline(
  step: Step,
  message: ActivityAddress,
  activity: CompiledTask,
): Promise<boolean> {
  const address = { job: message.job, a: message.a, d: message.d };
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  const last = (await step.record(message.a, message.d))?.error ?? undefined;
  const outcome = handles(step, message.a, 'timeout') ? 'timeout' : 'error';
  await finishActivity(step, address, { outcome, error: deadlineError(activity, last) });
  return true;
}

function record(response: TaskResponse) {
  return { activity: response.a, dimension: response.d };
}
