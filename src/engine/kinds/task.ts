/**
 * task: sends its input to a worker handler by name. Leg1 starts it (9→8) and enqueues
 * the work; each worker response is a Leg2 input. A failed attempt with attempts left is
 * a `pending` response that re-enqueues the work after the retry backoff; the final
 * result closes Leg2 and ends the activity.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { MAX_DURATION_MS, parseDuration } from '../../graph/durations.js';
import { timesOutWhenSet } from '../../graph/kind-spec.js';
import { shortId } from '../../graph/scopes.js';
import { description, duration, expression, join } from '../../graph/workflow-document.js';
import type { Json } from '../../store/records.js';
import { evaluateOrFail, finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import { type TaskMessage, type TaskResponse, taskStream } from '../messages.js';
import type { Step } from '../step.js';
import { handles } from '../transitions.js';
import { defineKind } from './activity-kind.js';

/** Default retry growth factor. */
export const DEFAULT_RETRY_FACTOR = 2;

/** Retry policy of a task activity, durations in ms. */
export interface RetryPolicy {
  /** Total attempts, the first included (1 = no retry). */
  attempts: number;
  /** Delay before the second attempt. */
  backoffMs: number;
  /** Each further delay is the previous one times this (default 2). */
  factor: number;
  /** Delays never exceed this. */
  maxDelayMs: number;
}

/** A compiled task. */
export interface CompiledTask extends CompiledActivityBase {
  kind: 'task';
  /** The handler name. */
  task: string;
  /** JSONata producing the handler's input; absent = the job input. */
  input?: string;
  /** Retry policy (one attempt when absent). */
  retry?: RetryPolicy;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** The handler that undoes it (TaskFlow's revert), run when the job reverts. */
  revert?: string;
}

const retry = z
  .strictObject({
    attempts: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .meta({ description: 'Total attempts, the first included.' }),
    backoff: duration.meta({ description: 'Delay before the second attempt.' }),
    factor: z
      .number()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Multiplier per further attempt (default 2).' }),
    maxDelay: duration.optional().meta({ description: 'Cap on any one delay (default: no cap).' }),
  })
  .meta({ description: 'Retry policy of a task.' });

function ms(value: unknown): number {
  // Only called on values the checks accepted.
  return parseDuration(value) ?? 0;
}

/** The delay before attempt `next` (2 = the first retry). */
export function retryDelay(policy: RetryPolicy | undefined, next: number): number {
  if (!policy) return 0;
  const raw = policy.backoffMs * policy.factor ** Math.max(0, next - 2);
  return Math.min(policy.maxDelayMs, raw);
}

function sendTask(step: Step, message: TaskMessage, availableAt?: number) {
  step.send({
    stream: taskStream(message.task),
    job: message.job,
    payload: message as unknown as Json,
    ...(availableAt !== undefined ? { availableAt } : {}),
  });
}

/** The task kind. */
export const task = defineKind({
  kind: 'task',
  document: z.strictObject({
    kind: z.literal('task'),
    task: z.string().min(1).optional().meta({
      description: 'Handler name (default: the activity id, short inside a scope).',
    }),
    input: expression.optional(),
    retry: retry.optional(),
    timeout: duration.optional().meta({ description: 'Per-attempt timeout.' }),
    revert: z.string().min(1).optional().meta({
      description:
        'Handler that undoes this task when the job reverts (on_failure: revert); it gets { input, output, error } of the run.',
    }),
    join: join.optional(),
    description: description.optional(),
  }),
  expressions: ['input'],
  durations: ['timeout', 'backoff', 'maxDelay'],
  compile(doc, base): CompiledTask {
    return {
      ...base,
      kind: 'task',
      task: doc.task ?? shortId(base.id),
      ...(doc.input !== undefined && { input: doc.input }),
      ...(doc.retry && {
        retry: {
          attempts: doc.retry.attempts,
          backoffMs: ms(doc.retry.backoff),
          factor: doc.retry.factor ?? DEFAULT_RETRY_FACTOR,
          maxDelayMs: doc.retry.maxDelay === undefined ? MAX_DURATION_MS : ms(doc.retry.maxDelay),
        },
      }),
      ...(doc.timeout !== undefined && { timeoutMs: ms(doc.timeout) }),
      ...(doc.revert !== undefined && { revert: doc.revert }),
    };
  },
  outcomeProblem: timesOutWhenSet,
  check({ id, fields }, _facts, problems) {
    const policy = fields.retry as Record<string, unknown> | undefined;
    if (!policy || typeof policy !== 'object') return;
    const backoff = parseDuration(policy.backoff);
    const maxDelay = parseDuration(policy.maxDelay);
    if (backoff !== undefined && maxDelay !== undefined && maxDelay < backoff) {
      problems.add(
        ['activities', id, 'retry', 'maxDelay'],
        `maxDelay (${maxDelay}ms) is less than backoff (${backoff}ms)`,
      );
    }
  },
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
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'RUNNING',
      input,
      attempt: 1,
      startedAt: step.clock.now(),
      finishedAt: null,
    });
    sendTask(step, {
      ...address,
      task: activity.task,
      input,
      attempt: 1,
      ...(activity.timeoutMs !== undefined ? { timeoutMs: activity.timeoutMs } : {}),
    });
  },
});

/** Leg2 of a task: one worker response. Returns false when Leg2 was already closed. */
export async function respondTask(step: Step, response: TaskResponse): Promise<boolean> {
  const address = { job: response.job, a: response.a, d: response.d };
  // A response for an attempt other than the current one is stale (a second delivery of
  // an earlier attempt's work): it must not reach Leg2, or it would schedule a retry again.
  const current = await step.record(response.a, response.d);
  if (current && current.attempt !== response.attempt) return false;
  const activity = step.activity(response.a) as CompiledTask;
  const attempts = activity.retry?.attempts ?? 1;
  const retry = response.status === 'error' && response.attempt < attempts;
  const exit = response.status === 'pending' || retry ? 'pending' : 'final';
  if ((await passLeg2(step, address, exit)) === undefined) return false;
  if (response.status === 'pending') {
    step.putActivity({ ...record(response), output: response.output ?? null });
    return true;
  }
  if (retry) {
    const stored = await step.record(response.a, response.d);
    const next = response.attempt + 1;
    step.putActivity({
      ...record(response),
      attempt: next,
      error: response.error ?? null,
    });
    sendTask(
      step,
      {
        ...address,
        task: activity.task,
        input: stored?.input ?? null,
        attempt: next,
        ...(activity.timeoutMs !== undefined ? { timeoutMs: activity.timeoutMs } : {}),
      },
      step.clock.now() + retryDelay(activity.retry, next),
    );
    return true;
  }
  if (response.status === 'success') {
    await finishActivity(step, address, { outcome: 'success', output: response.output ?? null });
  } else {
    const outcome = response.timedOut && handles(step, response.a, 'timeout') ? 'timeout' : 'error';
    await finishActivity(step, address, {
      outcome,
      ...(response.error ? { error: response.error } : {}),
    });
  }
  return true;
}

function record(response: TaskResponse) {
  return { activity: response.a, dimension: response.d };
}
