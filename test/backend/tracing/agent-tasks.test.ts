/**
 * Tasks handed to HTTP agents by `weft serve` carry their job's W3C trace context
 * (`traceparent`, `tracestate` when there is one), so an agent in another language can
 * join the job's trace; the server's own transactions record weft's activity and job
 * spans under the job's start span. Both stores.
 */
import { trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { type Serving, serve } from '../../../src/server/serve.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { parentOf, registerTestSdk, type TestSdk } from '../../support/tracing-sdk.js';
import { waitFor } from '../../support/wait-for.js';
import { HttpAgent } from '../server/http-agent.js';

let sdk: TestSdk;
let store: Store;
let close: () => Promise<void>;
let serving: Serving;

beforeAll(() => {
  sdk = registerTestSdk();
});
afterAll(async () => sdk.shutdown());
beforeEach(async () => {
  sdk.exporter.reset();
  ({ store, close } = await openTestStore());
  serving = await serve({
    store,
    port: 0,
    tasks: ['double'],
    logger: { error: (m, e) => console.error(m, e), info() {} },
  });
});
afterEach(async () => {
  await serving.close();
  await close();
});

describe.skipIf(skipBackend)('tracing through weft serve', () => {
  it("hands an agent the job's trace context with its task", async () => {
    const client = new Client(store);
    await client.deploy(
      compileWorkflow(`
workflow: doubling
activities:
  start:  { kind: trigger }
  double: { kind: task, input: "input.n" }
transitions:
  start: [double]
output: "double.output"
`),
    );
    const { job, caller } = await trace
      .getTracer('app')
      .startActiveSpan('http.request', async (span) => {
        try {
          return { job: await client.start('doubling', { n: 4 }), caller: span.spanContext() };
        } finally {
          span.end();
        }
      });
    const agent = new HttpAgent(serving.url);
    let offer: { action?: string; traceparent?: string; uuid: string; input: unknown } = {
      uuid: '',
      input: null,
    };
    await waitFor(async () => {
      offer = await agent.job('?wait=1000');
      return offer.action === 'TaskScheduled';
    }, 'a task for the agent');
    const start = sdk.finishedSpans().find((s) => s.name === 'weft.start doubling');
    expect(parentOf(start as never)).toBe(caller.spanId);
    expect(offer.traceparent).toBe(`00-${caller.traceId}-${start?.spanContext().spanId}-01`);
    await agent.runTask(offer.uuid, 'double', offer.input);
    expect(await client.result(job.id, { wait: true, timeoutMs: 30_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 8,
    });
    await waitFor(() => sdk.finishedSpans().some((s) => s.name === 'weft.activity double'));
    const spans = sdk.finishedSpans();
    for (const name of ['weft.activity double', 'weft.job doubling']) {
      const span = spans.find((s) => s.name === name);
      expect(span?.spanContext().traceId).toBe(caller.traceId);
      expect(parentOf(span as never)).toBe(start?.spanContext().spanId);
    }
  });
});
