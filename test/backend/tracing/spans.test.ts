/**
 * OpenTelemetry spans in one process, with the SDK's in-memory exporter: a job started
 * inside the caller's span continues its trace; each task attempt is a span the handler
 * runs in (its own spans are children, `trace.getActiveSpan()` is the attempt), a failed
 * attempt's span has status ERROR; activities, code-first steps and jobs are recorded
 * when they end, with weft's attributes; a child job hangs under its parent job; a
 * duplicate start records nothing, a client's cancel records the job span, and a job
 * started with no SDK registered still gets attempt spans. Graph and code-first, on both
 * stores.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { overriding } from '../../../src/store/overriding.js';
import type { ActivityKey, Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { parentOf, registerTestSdk, type TestSdk } from '../../support/tracing-sdk.js';
import { waitFor } from '../../support/wait-for.js';

const order = compileWorkflow(`
workflow: order
activities:
  start:  { kind: trigger }
  charge: { kind: task, task: charge, retry: { attempts: 2, backoff: 10ms } }
  child:  { kind: await, workflow: invoice, input: "{ 'n': 1 }" }
transitions:
  start: [charge]
  charge: [child]
`);
const invoice = compileWorkflow(`
workflow: invoice
activities:
  start: { kind: trigger }
  bill:  { kind: task, task: bill }
transitions:
  start: [bill]
`);

let sdk: TestSdk;
let store: Store;
let close: () => Promise<void>;
let client: Client;
let worker: Worker | undefined;

beforeAll(() => {
  sdk = registerTestSdk();
});
afterAll(async () => sdk.shutdown());
beforeEach(async () => {
  sdk.exporter.reset();
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

const app = () => trace.getTracer('app');

function named(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => s.name === name);
}
function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as ReadableSpan;
}

/** Starts `fn`'s job inside a caller span; returns the job and the caller's span context. */
async function startInSpan<T>(fn: () => Promise<T>) {
  return app().startActiveSpan('http.request', async (span) => {
    try {
      return { result: await fn(), caller: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

describe.skipIf(skipBackend)('tracing', () => {
  it('a graph job continues the caller trace: attempts, activities, the job, a child job', async () => {
    await client.deploy(order);
    await client.deploy(invoice);
    let activeInHandler = '';
    worker = new Worker({
      store,
      handlers: {
        charge: async (_input, ctx) => {
          if (ctx.attempt === 1) throw new Error('card network down');
          activeInHandler = trace.getActiveSpan()?.spanContext().spanId ?? '';
          return app().startActiveSpan('charge.call', async (span) => {
            span.end();
            return 'paid';
          });
        },
        bill: async () => 'billed',
      },
    });
    await worker.start();
    const { result: job, caller } = await startInSpan(() => client.start('order', {}));
    expect(job.trace?.traceparent).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    await waitFor(
      () => named(sdk.finishedSpans(), 'weft.activity child').length === 1,
      'the await activity span',
    );
    const spans = sdk.finishedSpans();
    const weft = spans.filter((s) => s.name.startsWith('weft.'));
    // One trace: the caller's.
    expect(new Set(weft.map((s) => s.spanContext().traceId))).toEqual(new Set([caller.traceId]));

    const start = one(spans, 'weft.start order');
    expect(parentOf(start)).toBe(caller.spanId);
    expect(start.attributes).toMatchObject({ 'weft.job.id': job.id, 'weft.workflow': 'order' });
    // The stored context is the start span's.
    expect(job.trace?.traceparent).toContain(start.spanContext().spanId);
    const anchor = start.spanContext().spanId;

    const attempts = named(spans, 'weft.attempt charge').sort(
      (x, y) => Number(x.attributes['weft.attempt']) - Number(y.attributes['weft.attempt']),
    );
    expect(attempts).toHaveLength(2);
    for (const [i, a] of attempts.entries()) {
      expect(parentOf(a)).toBe(anchor);
      expect(a.attributes).toMatchObject({
        'weft.job.id': job.id,
        'weft.workflow': 'order',
        'weft.activity': 'charge',
        'weft.task': 'charge',
        'weft.attempt': i + 1,
      });
    }
    const [failed, passed] = attempts as [ReadableSpan, ReadableSpan];
    expect(failed.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'card network down',
    });
    expect(failed.events.map((e) => e.name)).toContain('exception');
    expect(passed.status.code).not.toBe(SpanStatusCode.ERROR);
    // The handler ran inside its attempt's span.
    expect(activeInHandler).toBe(passed.spanContext().spanId);
    expect(parentOf(one(spans, 'charge.call'))).toBe(passed.spanContext().spanId);

    const activity = one(spans, 'weft.activity charge');
    expect(parentOf(activity)).toBe(anchor);
    expect(activity.attributes).toMatchObject({
      'weft.job.id': job.id,
      'weft.workflow': 'order',
      'weft.activity': 'charge',
      'weft.attempt': 2,
      'weft.status': 'SUCCESS',
    });
    expect(activity.attributes['weft.collation_key']).toMatch(/^\d+$/);

    const jobSpan = one(spans, 'weft.job order');
    expect(parentOf(jobSpan)).toBe(anchor);
    expect(jobSpan.attributes).toMatchObject({
      'weft.job.id': job.id,
      'weft.workflow': 'order',
      'weft.job.state': 'SUCCESS',
    });
    expect(jobSpan.attributes['weft.collation_key']).toMatch(/^\d+$/);
    expect(jobSpan.status.code).not.toBe(SpanStatusCode.ERROR);

    // The child job hangs under its parent job's anchor, and its attempts under its own.
    const childStart = one(spans, 'weft.start invoice');
    expect(parentOf(childStart)).toBe(anchor);
    expect(childStart.attributes).toMatchObject({
      'weft.parent.job.id': job.id,
      'weft.parent.activity': 'child',
    });
    const bill = one(spans, 'weft.attempt bill');
    expect(parentOf(bill)).toBe(childStart.spanContext().spanId);
    expect(parentOf(one(spans, 'weft.job invoice'))).toBe(childStart.spanContext().spanId);
  });

  it('a job that fails records ERROR on its job and activity spans', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: doomed
activities:
  start: { kind: trigger }
  boom:  { kind: task, task: boom, retry: { attempts: 1 } }
transitions:
  start: [boom]
`),
    );
    worker = new Worker({
      store,
      handlers: {
        boom: async () => {
          throw new Error('exploded');
        },
      },
    });
    await worker.start();
    const { result: job } = await startInSpan(() => client.start('doomed', {}));
    expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe('FAILURE');
    await waitFor(() => named(sdk.finishedSpans(), 'weft.activity boom').length === 1);
    const spans = sdk.finishedSpans();
    const jobSpan = one(spans, 'weft.job doomed');
    expect(jobSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(jobSpan.attributes['weft.job.state']).toBe('FAILURE');
    const activity = one(spans, 'weft.activity boom');
    expect(activity.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'exploded' });
    expect(one(spans, 'weft.attempt boom').status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a code-first job: a span per step and per attempt, a child workflow under its parent', async () => {
    let activeInHandler = '';
    const book = defineTask(
      'book',
      async (n: number, ctx) => {
        if (ctx.attempt === 1) throw new Error('no seats');
        activeInHandler = trace.getActiveSpan()?.spanContext().spanId ?? '';
        return n + 1;
      },
      { retry: { attempts: 2, backoff: 10 } },
    );
    const double = defineTask('double', async (n: number) => n * 2);
    const leg = defineWorkflow(
      'leg',
      class extends Workflow {
        async handle(n: number) {
          return this.execute(double, n);
        }
      },
    );
    const tripWorkflow = defineWorkflow(
      'trip',
      class extends Workflow {
        async handle(n: number) {
          const booked = await this.execute(book, n);
          return this.execute(leg, booked);
        }
      },
    );
    worker = new Worker({ store, workflows: [tripWorkflow, leg], tasks: [book, double] });
    await worker.start();
    const { result: job, caller } = await startInSpan(() => client.start('trip', [1]));
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 4 });
    await waitFor(() => named(sdk.finishedSpans(), 'weft.job trip').length === 1);
    const spans = sdk.finishedSpans();
    const weft = spans.filter((s) => s.name.startsWith('weft.'));
    expect(new Set(weft.map((s) => s.spanContext().traceId))).toEqual(new Set([caller.traceId]));

    const start = one(spans, 'weft.start trip');
    expect(parentOf(start)).toBe(caller.spanId);
    const anchor = start.spanContext().spanId;
    const attempts = named(spans, 'weft.attempt book');
    expect(attempts.map((a) => a.attributes['weft.attempt']).sort()).toEqual([1, 2]);
    for (const a of attempts) {
      expect(parentOf(a)).toBe(anchor);
      expect(a.attributes).toMatchObject({
        'weft.job.id': job.id,
        'weft.workflow': 'trip',
        'weft.model': 'durable',
      });
    }
    const passed = attempts.find((a) => a.attributes['weft.attempt'] === 2) as ReadableSpan;
    expect(activeInHandler).toBe(passed.spanContext().spanId);
    expect(attempts.find((a) => a.attributes['weft.attempt'] === 1)?.status.code).toBe(
      SpanStatusCode.ERROR,
    );

    const step = one(spans, 'weft.step book');
    expect(parentOf(step)).toBe(anchor);
    expect(step.attributes).toMatchObject({
      'weft.job.id': job.id,
      'weft.workflow': 'trip',
      'weft.step': 'book',
      'weft.status': 'completed',
      'weft.attempt': 2,
    });
    expect(step.attributes['weft.activity']).toBe(passed.attributes['weft.activity']);
    expect(parentOf(one(spans, 'weft.step leg'))).toBe(anchor);
    const jobSpan = one(spans, 'weft.job trip');
    expect(parentOf(jobSpan)).toBe(anchor);
    expect(jobSpan.attributes['weft.job.state']).toBe('SUCCESS');

    const legStart = one(spans, 'weft.start leg');
    expect(parentOf(legStart)).toBe(anchor);
    expect(parentOf(one(spans, 'weft.attempt double'))).toBe(legStart.spanContext().spanId);
  });

  it('a start that makes no job records no start span, and keeps the first start trace', async () => {
    await client.deploy(invoice);
    const { result: first } = await startInSpan(() => client.start('invoice', {}, { id: 'inv-1' }));
    const { result: again } = await startInSpan(() => client.start('invoice', {}, { id: 'inv-1' }));
    expect(again.trace).toEqual(first.trace);
    const starts = named(sdk.finishedSpans(), 'weft.start invoice');
    expect(starts).toHaveLength(1);
    expect(first.trace?.traceparent).toContain(starts[0]?.spanContext().spanId);
  });

  it('a job the client cancels gets its job span from the client, with status ERROR', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: held
activities:
  start: { kind: trigger }
  hold:  { kind: hook, signal: go }
transitions:
  start: [hold]
`),
    );
    worker = new Worker({ store, handlers: {} });
    await worker.start();
    const { result: job, caller } = await startInSpan(() => client.start('held', {}));
    await waitFor(async () => (await store.listActivities(job.id)).length > 0, 'the hook to wait');
    const cancelled = await client.cancel(job.id);
    expect(cancelled.state).not.toBe('SUCCESS');
    await waitFor(() => named(sdk.finishedSpans(), 'weft.job held').length === 1);
    const spans = sdk.finishedSpans();
    const jobSpan = one(spans, 'weft.job held');
    expect(jobSpan.spanContext().traceId).toBe(caller.traceId);
    expect(parentOf(jobSpan)).toBe(one(spans, 'weft.start held').spanContext().spanId);
    expect(jobSpan.attributes['weft.job.state']).toBe(cancelled.state);
    expect(jobSpan.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a job started while no SDK was registered still gets attempt spans, each a trace of its own', async () => {
    await client.deploy(invoice);
    trace.disable();
    const job = await client.start('invoice', {});
    trace.setGlobalTracerProvider(sdk.provider);
    expect(job.trace).toBeUndefined();
    let active = '';
    worker = new Worker({
      store,
      handlers: {
        bill: async () => {
          active = trace.getActiveSpan()?.spanContext().spanId ?? '';
          return 'billed';
        },
      },
    });
    await worker.start();
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    await waitFor(() => named(sdk.finishedSpans(), 'weft.attempt bill').length === 1);
    const spans = sdk.finishedSpans();
    const attempt = one(spans, 'weft.attempt bill');
    expect(parentOf(attempt)).toBe('');
    expect(attempt.attributes).toMatchObject({ 'weft.job.id': job.id, 'weft.workflow': 'invoice' });
    expect(active).toBe(attempt.spanContext().spanId);
    // No anchor to hang them on: no start, activity or job span.
    expect(spans.filter((s) => s.name !== 'weft.attempt bill')).toEqual([]);
  });

  it('a job started outside any span begins a trace of its own', async () => {
    await client.deploy(invoice);
    worker = new Worker({ store, handlers: { bill: async () => 'billed' } });
    await worker.start();
    const job = await client.start('invoice', {});
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    await waitFor(() => named(sdk.finishedSpans(), 'weft.job invoice').length === 1);
    const spans = sdk.finishedSpans();
    const start = one(spans, 'weft.start invoice');
    expect(parentOf(start)).toBe('');
    const traceId = start.spanContext().traceId;
    for (const s of spans) expect(s.spanContext().traceId).toBe(traceId);
    expect(parentOf(one(spans, 'weft.attempt bill'))).toBe(start.spanContext().spanId);
  });

  it('a worker stopped right after a job ends still records the spans of its last commit', async () => {
    // An activity's span is recorded once its record is read back after the commit. Here
    // that read is slow, and the worker is stopped the moment the job has ended: its stop
    // waits for the read while the store is open (a `weft worker` sent SIGTERM then
    // flushed its spans without the last activity's, and closed the store under the read).
    await client.deploy(invoice);
    let slowReads = 0;
    const slow = overriding(store, {
      getActivities: async (keys: ActivityKey[]) => {
        slowReads++;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return store.getActivities(keys);
      },
    });
    worker = new Worker({ store: slow, handlers: { bill: async () => 'billed' } });
    await worker.start();
    const job = await client.start('invoice', {});
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    await worker.stop();
    worker = undefined;
    expect(slowReads).toBeGreaterThan(0);
    const spans = sdk.finishedSpans().filter((s) => s.attributes['weft.job.id'] === job.id);
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['weft.job invoice', 'weft.activity bill', 'weft.attempt bill']),
    );
  });
});
