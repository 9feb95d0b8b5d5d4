/**
 * weft's OpenTelemetry spans, through `@opentelemetry/api` alone: when the application
 * registers no SDK, {@link tracingOn} is false and nothing here runs (no span, no
 * context stored with a job, no read).
 *
 * The model (docs/tracing.md): a job's work is spread over many transactions and
 * processes, so no process holds a span open for the job's whole life. Instead:
 *
 * - the process that starts a job records a short **start span** (`weft.start <workflow>`)
 *   as a child of its active context, and stores that span's W3C context with the job;
 *   this is the job's anchor, the parent of every span the job has afterwards;
 * - each **attempt** of a task is a live span (`weft.attempt <task>`) in the worker that
 *   runs it, a child of the anchor, and the handler runs inside it;
 * - each **activity** (graph) or **step** (code-first) and the **job** itself are recorded
 *   when they end, by whichever process ends them, with their real start and end times
 *   (`weft.activity <id>`, `weft.step <name>`, `weft.job <workflow>`), children of the anchor;
 * - a child job's start span is a child of its parent job's anchor.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  isSpanContextValid,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { ErrorRecord, TraceContext } from '../store/records.js';

/** The instrumentation scope weft's spans are recorded under. */
export const TRACER_NAME = 'weft-engine';

/** The attribute names weft puts on its spans. */
export const ATTR = {
  job: 'weft.job.id',
  workflow: 'weft.workflow',
  model: 'weft.model',
  state: 'weft.job.state',
  activity: 'weft.activity',
  dimension: 'weft.dimension',
  step: 'weft.step',
  task: 'weft.task',
  attempt: 'weft.attempt',
  status: 'weft.status',
  collation: 'weft.collation_key',
  parentJob: 'weft.parent.job.id',
  parentActivity: 'weft.parent.activity',
  revert: 'weft.revert',
} as const;

/** The provider's delegate when no SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * True when the application registered a tracer provider (an SDK). Checked at each use,
 * so a provider registered after a worker or client was made is still honoured.
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** Span work still under way: a committed transaction's activity spans wait on a read. */
const pending = new Set<Promise<unknown>>();

/** Keeps `work` until it settles, so {@link spanWorkDone} and {@link flushSpans} wait for it. */
export function trackSpanWork(work: Promise<unknown>): void {
  pending.add(work);
  work.then(
    () => pending.delete(work),
    () => pending.delete(work),
  );
}

/**
 * Resolves once the span work under way now has settled: a worker that stops waits for
 * it while its store is still open, or the spans of its last commits would be lost.
 */
export async function spanWorkDone(): Promise<void> {
  await Promise.allSettled([...pending]);
}

/**
 * Sends the spans the registered provider still buffers (a `BatchSpanProcessor` holds
 * them for seconds), waiting at most `timeoutMs`: a command that exits right after its
 * worker stops calls it last, so the spans of its last seconds are not lost. Nothing to
 * do without an SDK, or with a provider that has no `forceFlush`. Never throws: an
 * exporter that fails or hangs must not keep the process from ending.
 */
export async function flushSpans(timeoutMs: number): Promise<void> {
  if (!tracingOn()) return;
  const registered = trace.getTracerProvider();
  const provider = (
    registered instanceof ProxyTracerProvider ? registered.getDelegate() : registered
  ) as { forceFlush?: () => Promise<void> };
  if (typeof provider.forceFlush !== 'function') return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    spanWorkDone().then(() => provider.forceFlush?.().catch(() => {})),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/** weft's tracer (from whatever provider is registered now). */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C context of a span, or undefined when its context is not valid (no SDK, say). */
export function traceContextOf(span: Span): TraceContext | undefined {
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return undefined;
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${sc.traceId}-${sc.spanId}-${flags}`;
  const tracestate = sc.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * A context whose (remote) parent is the stored `stored`, or the root context when there
 * is none or it does not parse (it then starts a trace of its own).
 */
export function contextFrom(stored: TraceContext | undefined): Context {
  const match = stored ? TRACEPARENT.exec(stored.traceparent) : null;
  if (!stored || !match) return ROOT_CONTEXT;
  const spanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16),
    isRemote: true,
    ...(stored.tracestate ? { traceState: createTraceState(stored.tracestate) } : {}),
  };
  if (!isSpanContextValid(spanContext)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** Marks `span` failed with `error` (a thrown value or a stored error record). */
export function recordError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    return;
  }
  const record = error as Partial<ErrorRecord> | undefined;
  const message = record?.message ?? String(error);
  span.recordException({ name: record?.name ?? 'Error', message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** What a job's start span is about. */
export interface StartOf {
  job: string;
  workflow: string;
  parentJob?: string | null | undefined;
  parentActivity?: string | null | undefined;
}

/**
 * Opens a job's start span under `parent` (the caller's active context, or a parent job's
 * anchor). The caller ends it when the start commits, and drops it when it does not.
 */
export function startSpan(start: StartOf, parent: Context): Span {
  const attributes: Attributes = { [ATTR.job]: start.job, [ATTR.workflow]: start.workflow };
  if (start.parentJob) attributes[ATTR.parentJob] = start.parentJob;
  if (start.parentActivity) attributes[ATTR.parentActivity] = start.parentActivity;
  return tracer().startSpan(
    `weft.start ${start.workflow}`,
    { kind: SpanKind.PRODUCER, attributes },
    parent,
  );
}

/** The current context: where a start from the caller's code hangs its span. */
export function activeContext(): Context {
  return context.active();
}

/** A span that has already ended, recorded now with its own times. */
export interface EndedSpan {
  name: string;
  parent: TraceContext;
  startTime: number;
  endTime: number;
  attributes: Attributes;
  /** The error it ended with, when it failed. */
  error?: unknown;
  failed?: boolean;
}

/** Records a span that began and ended in the past (a job, an activity, a step). */
export function recordEnded(ended: EndedSpan): void {
  const span = tracer().startSpan(
    ended.name,
    {
      kind: SpanKind.INTERNAL,
      startTime: ended.startTime,
      attributes: ended.attributes,
    },
    contextFrom(ended.parent),
  );
  if (ended.failed) recordError(span, ended.error ?? 'failed');
  span.end(Math.max(ended.startTime, ended.endTime));
}
