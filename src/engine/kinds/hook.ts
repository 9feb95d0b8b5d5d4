/**
 * hook: pauses until a named signal arrives. Leg1 starts and completes it and leaves it
 * paused (9→8→6→5) with a signal waiter registered, plus a durable timer when it has a
 * timeout. The signal is Leg2: released (5→4) with the signal's data as output. A
 * timeout that wins is also Leg2: released, taking `on: timeout` transitions.
 */
import { z } from 'zod';
import { COLLATION_DIGITS } from '../../core/collation-digits.js';
import type { CompiledActivityBase } from '../../graph/compiled-workflow.js';
import { parseDuration } from '../../graph/durations.js';
import { timesOutWhenSet } from '../../graph/kind-spec.js';
import { description, duration, join } from '../../graph/workflow-document.js';
import type { Json } from '../../store/records.js';
import { finishActivity } from '../finish-activity.js';
import { passLeg2 } from '../legs.js';
import { type ActivityAddress, ENGINE_STREAM, type SignalMessage } from '../messages.js';
import { signalKey } from '../signal-key.js';
import type { Step } from '../step.js';
import { defineKind } from './activity-kind.js';

/** A compiled hook. */
export interface CompiledHook extends CompiledActivityBase {
  kind: 'hook';
  /** The signal name. */
  signal: string;
  /** How long to wait for the signal. */
  timeoutMs?: number;
}

function timerKey(address: ActivityAddress): string {
  return `hook:${address.job}:${address.a}:${address.d}`;
}

/** The hook kind. */
export const hook = defineKind({
  kind: 'hook',
  document: z.strictObject({
    kind: z.literal('hook'),
    signal: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Signal name (default: the activity id).' }),
    timeout: duration.optional().meta({ description: 'How long to wait for the signal.' }),
    join: join.optional(),
    description: description.optional(),
  }),
  durations: ['timeout'],
  compile: (doc, base): CompiledHook => ({
    ...base,
    kind: 'hook',
    signal: doc.signal ?? base.id,
    ...(doc.timeout !== undefined && { timeoutMs: parseDuration(doc.timeout) ?? 0 }),
  }),
  outcomeProblem: timesOutWhenSet,
  respond: {
    signal: respondSignal,
    timeout: respondHookTimeout,
  },
  async enter(step, address, activity) {
    await step.move(address.a, COLLATION_DIGITS.started);
    await step.move(address.a, COLLATION_DIGITS.completed);
    await step.move(address.a, COLLATION_DIGITS.paused);
    step.putActivity({
      activity: address.a,
      dimension: address.d,
      status: 'RUNNING',
      startedAt: step.clock.now(),
      finishedAt: null,
    });
    const payload = { k: 'signal', ...address } as unknown as Json;
    step.registerWaiter({
      key: signalKey(step.job.id, activity.signal),
      job: step.job.id,
      message: { stream: ENGINE_STREAM, job: step.job.id, payload },
    });
    if (activity.timeoutMs !== undefined) {
      step.scheduleTimer({
        key: timerKey(address),
        at: step.clock.now() + activity.timeoutMs,
        message: {
          stream: ENGINE_STREAM,
          job: step.job.id,
          payload: { k: 'timeout', ...address } as unknown as Json,
        },
      });
    }
  },
});

/** Leg2 of a hook: its signal arrived. False when Leg2 was already closed. */
async function respondSignal(
  step: Step,
  message: SignalMessage,
  activity: CompiledHook,
): Promise<boolean> {
  const address = { job: message.job, a: message.a, d: message.d };
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  if (activity.timeoutMs !== undefined) step.cancelTimer(timerKey(address));
  await finishActivity(step, address, {
    outcome: 'success',
    output: message.signal ?? null,
    digit: COLLATION_DIGITS.released,
  });
  return true;
}

/** Leg2 of a hook: its timeout elapsed first. False when Leg2 was already closed. */
async function respondHookTimeout(
  step: Step,
  message: ActivityAddress,
  activity: CompiledHook,
): Promise<boolean> {
  const address = { job: message.job, a: message.a, d: message.d };
  if ((await passLeg2(step, address, 'final')) === undefined) return false;
  step.removeWaiter(signalKey(step.job.id, activity.signal));
  await finishActivity(step, address, {
    outcome: 'timeout',
    digit: COLLATION_DIGITS.released,
    error: {
      name: 'TimeoutError',
      code: 'TIMEOUT',
      message: `hook ${activity.id} got no ${JSON.stringify(activity.signal)} signal within ${activity.timeoutMs} ms`,
    },
  });
  return true;
}
