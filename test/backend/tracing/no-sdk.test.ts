/**
 * With no OpenTelemetry SDK registered, tracing is off and leaves no trace: a job started
 * inside a caller's (no-op) span stores no trace context, its task messages carry none,
 * and a handler has no active span. Both stores.
 */
import { context, trace } from '@opentelemetry/api';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store, StreamMessage } from '../../../src/store/store.js';
import { tracingOn } from '../../../src/worker/tracing.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let store: Store;
let close: () => Promise<void>;

beforeAll(() => {
  trace.disable();
  context.disable();
});
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => close());

describe.skipIf(skipBackend)('tracing without an SDK', () => {
  it('is off, stores no trace context, and gives handlers no span', async () => {
    expect(tracingOn()).toBe(false);
    const client = new Client(store);
    await client.deploy(
      compileWorkflow(`
workflow: plain
activities:
  start: { kind: trigger }
  work:  { kind: task, task: work }
transitions:
  start: [work]
`),
    );
    const seen: unknown[] = [];
    const job = await trace.getTracer('app').startActiveSpan('http.request', async (span) => {
      try {
        return await client.start('plain', {});
      } finally {
        span.end();
      }
    });
    expect(job.trace).toBeUndefined();
    expect((await store.getJob(job.id))?.trace).toBeUndefined();
    // A worker with no handler runs the engine's step: the task's message waits, traceless.
    const engineOnly = new Worker({ store, handlers: {} });
    await engineOnly.start();
    let task: StreamMessage | undefined;
    try {
      await waitFor(async () => {
        task = (await store.jobMessages(job.id)).find((m) => m.stream === 'task:work');
        return task !== undefined;
      }, 'the task message');
    } finally {
      await engineOnly.stop();
    }
    expect(task?.payload).toMatchObject({ task: 'work' });
    expect(task?.payload).not.toHaveProperty('trace');

    const worker = new Worker({
      store,
      handlers: {
        work: async () => {
          seen.push(trace.getActiveSpan());
          return 'done';
        },
      },
    });
    await worker.start();
    try {
      expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe(
        'SUCCESS',
      );
    } finally {
      await worker.stop();
    }
    expect(seen).toEqual([undefined]);
  });
});
