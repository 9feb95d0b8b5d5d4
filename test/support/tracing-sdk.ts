/**
 * An OpenTelemetry SDK for tests, registered the way an application registers one: a
 * tracer provider with an in-memory exporter, and an AsyncLocalStorage context manager
 * (so the active span follows async calls). `finishedSpans()` reads what was recorded.
 */

import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A registered SDK and what it recorded. */
export interface TestSdk {
  exporter: InMemorySpanExporter;
  provider: BasicTracerProvider;
  /** Every span ended so far. */
  finishedSpans(): ReadableSpan[];
  /** Unregisters it: the API is a no-op again. */
  shutdown(): Promise<void>;
}

/** Registers a tracer provider, a context manager and the W3C propagator globally. */
export function registerTestSdk(): TestSdk {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    provider,
    finishedSpans: () => exporter.getFinishedSpans(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** A span's parent span id ('' for a root span). */
export function parentOf(span: ReadableSpan): string {
  return span.parentSpanContext?.spanId ?? '';
}
