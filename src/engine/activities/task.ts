/**
 * task: sends its input to a worker handler by name. Leg1 starts it (9→8) and enqueues
 * the work; each worker response is a Leg2 input. A failed attempt with attempts left is
 * a `pending` response that re-enqueues the work after the retry backoff; the final
 * result closes Leg2 and ends the activity.
 */
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { RetryPolicy } from '../../graph/compiled-workflow.js';
import type { Json } from '../../store/records.js';
import { finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import { type TaskMessage, type TaskResponse, taskStream } from '../messages.js';
import type { Step } from '../step.js';
import { handles } from '../transitions.js';
import type { ActivityKind } from './activity-kind.js';

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

/** The task kind's Leg1. */
export const task: ActivityKind = {
  async enter(step, address) {
    const activity = step.activity(address.a);
    await step.move(address.a, COLLATION_DIGITS.started);
    const input = activity.input
      ? await step.evaluate(activity.input, `activity ${activity.id} (input)`)
      : step.job.input;
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
      task: activity.task ?? activity.id,
      input,
      attempt: 1,
      ...(activity.timeoutMs !== undefined ? { timeoutMs: activity.timeoutMs } : {}),
    });
  },
};

/** Leg2 of a task: one worker response. Returns false when Leg2 was already closed. */
export async function respondTask(step: Step, response: TaskResponse): Promise<boolean> {
  const address = { job: response.job, a: response.a, d: response.d };
  // A response for an attempt other than the current one is stale (a second delivery of
  // an earlier attempt's work): it must not reach Leg2, or it would schedule a retry again.
  const current = await step.record(response.a, response.d);
  if (current && current.attempt !== response.attempt) return false;
  const activity = step.activity(response.a);
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
        task: activity.task ?? activity.id,
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
