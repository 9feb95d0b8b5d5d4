/**
 * The span of one task attempt (`weft.attempt <task>`): opened in the worker that runs
 * the handler, a child of its job's anchor (tracing.ts), and the context the handler runs
 * in, so the handler's own spans are its children and `trace.getActiveSpan()` inside the
 * handler is this span. A failed attempt's span has status ERROR and the exception.
 *
 * The job's trace comes on the task message (tracing-store.ts put it there); a message
 * appended without it (by a process that did not trace) costs one read of the job. A job
 * started with no trace context gets attempt spans that each begin a trace of their own.
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import type { TaskMessage, TaskResponse, TaskTrace } from '../engine/messages.js';
import type { Store } from '../store/store.js';
import { ATTR, contextFrom, recordError, tracer, tracingOn } from './tracing.js';

/** An attempt's open span and the context its handler runs in. */
export interface AttemptSpan {
  span: Span;
  context: Context;
}

async function traceOfTask(store: Store, task: TaskMessage): Promise<Partial<TaskTrace>> {
  if (task.trace) return task.trace;
  const job = await store.getJob(task.job);
  if (!job) return {};
  return { ...job.trace, workflow: job.workflow };
}

/** Opens the span of `task`'s attempt; undefined when no SDK is registered. */
export async function openAttempt(
  store: Store,
  task: TaskMessage,
): Promise<AttemptSpan | undefined> {
  if (!tracingOn()) return undefined;
  const carried = await traceOfTask(store, task).catch(() => ({}) as Partial<TaskTrace>);
  const attributes: Attributes = {
    [ATTR.job]: task.job,
    [ATTR.activity]: task.a,
    [ATTR.task]: task.task,
    [ATTR.attempt]: task.attempt,
    [ATTR.model]: task.model ?? 'graph',
  };
  if (carried.workflow) attributes[ATTR.workflow] = carried.workflow;
  if (task.d) attributes[ATTR.dimension] = task.d;
  if (task.revert) attributes[ATTR.revert] = true;
  const parent = carried.traceparent
    ? contextFrom({
        traceparent: carried.traceparent,
        ...(carried.tracestate ? { tracestate: carried.tracestate } : {}),
      })
    : contextFrom(undefined);
  const span = tracer().startSpan(
    `weft.attempt ${task.task}`,
    { kind: SpanKind.CONSUMER, attributes },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` (the handler) inside the attempt's span, or as it is without one. */
export function inAttempt<T>(attempt: AttemptSpan | undefined, fn: () => T): T {
  return attempt ? context.with(attempt.context, fn) : fn();
}

/** Ends the attempt's span with the handler's outcome. */
export function closeAttempt(
  attempt: AttemptSpan | undefined,
  response: TaskResponse,
  thrown?: unknown,
): void {
  if (!attempt) return;
  if (response.status === 'error') {
    recordError(attempt.span, thrown instanceof Error ? thrown : response.error);
    if (response.timedOut) attempt.span.setAttribute('weft.timed_out', true);
  }
  attempt.span.end();
}
