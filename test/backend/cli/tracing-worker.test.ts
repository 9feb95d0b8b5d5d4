/**
 * A trace across two processes, as a user runs weft: this process is the client — it
 * registers an SDK (in-memory exporter) and starts jobs inside its own span — and
 * `weft worker --handlers <module>` is another process whose module registers an SDK of
 * its own (writing its spans to a file). The worker's spans carry the client's trace id;
 * its attempts, activities, steps and job spans hang under the start span the client
 * recorded, and a handler's own span under its attempt. Graph and code-first, both stores.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type SpanContext, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Json } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { parentOf, registerTestSdk, type TestSdk } from '../../support/tracing-sdk.js';
import { waitFor } from '../../support/wait-for.js';
import { launchWeft, REPO_ROOT, type RunningWeft } from '../../support/weft-cli.js';

const LIBRARY = pathToFileURL(join(REPO_ROOT, 'dist', 'index.js')).href;
const SDK = pathToFileURL(join(REPO_ROOT, 'test', 'fixtures', 'tracing', 'file-sdk.mjs')).href;

/** The worker's module: its SDK first, then graph handlers and a code-first workflow. */
const MODULE = `
import { trace } from ${JSON.stringify(SDK)};
import { defineTask, defineWorkflow, Workflow } from ${JSON.stringify(LIBRARY)};

export default {
  charge: async (input, ctx) => {
    if (ctx.attempt === 1) throw new Error('card network down');
    const active = trace.getActiveSpan()?.spanContext().spanId ?? '';
    return trace.getTracer('app').startActiveSpan('charge.call', (span) => {
      span.end();
      return { active };
    });
  },
};

export const book = defineTask('book', async (n) => n + 1);

export const trip = defineWorkflow('trip', class extends Workflow {
  async handle(n) {
    return this.execute(book, n);
  }
});
`;

const order = compileWorkflow(`
workflow: order
activities:
  start:  { kind: trigger }
  charge: { kind: task, task: charge, retry: { attempts: 2, backoff: 10ms } }
transitions:
  start: [charge]
output: "charge.output"
`);

interface FileSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  events: string[];
}

let sdk: TestSdk;
let location: TestStoreLocation;
let store: Store;
let dir: string;
let spansFile: string;
let worker: RunningWeft | undefined;

beforeAll(() => {
  sdk = registerTestSdk();
});
afterAll(async () => sdk.shutdown());
beforeEach(async () => {
  sdk.exporter.reset();
  location = await freshStoreUrl();
  store = await openStore(location.url);
  dir = mkdtempSync(join(tmpdir(), 'weft-tracing-'));
  spansFile = join(dir, 'spans.jsonl');
  writeFileSync(join(dir, 'worker.mjs'), MODULE);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await store.close();
  await location.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function workerSpans(): FileSpan[] {
  if (!existsSync(spansFile)) return [];
  return readFileSync(spansFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FileSpan);
}

function only<T extends { name: string }>(spans: T[], name: string): T {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as T;
}

/** Starts a job from inside a span of this (client) process. */
async function startInSpan(client: Client, workflow: string, input: Json) {
  return trace.getTracer('app').startActiveSpan('http.request', async (span) => {
    try {
      const job = await client.start(workflow, input);
      return { job, caller: span.spanContext() as SpanContext };
    } finally {
      span.end();
    }
  });
}

describe.skipIf(skipBackend)('a trace across a client process and a weft worker process', () => {
  it('the worker continues the client trace, graph and code-first', async () => {
    const client = new Client(store);
    await client.deploy(order);
    worker = launchWeft(['worker', '--handlers', 'worker.mjs'], {
      store: location.url,
      cwd: dir,
      env: { WEFT_TEST_SPANS: spansFile },
    });
    const graph = await startInSpan(client, 'order', {});
    const durable = await startInSpan(client, 'trip', [1]);
    for (const { job } of [graph, durable]) {
      const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
      expect(done.state, worker.err()).toBe('SUCCESS');
    }
    await waitFor(
      () =>
        ['weft.job order', 'weft.job trip', 'weft.activity charge', 'weft.step book'].every(
          (name) => workerSpans().some((s) => s.name === name),
        ),
      'the worker process to record its spans',
      { timeoutMs: 30_000 },
    );
    const remote = workerSpans();
    const local = sdk.finishedSpans();

    // Graph: every worker span is in the client's trace, under the client's start span.
    const orderStart = only(local, 'weft.start order');
    expect(parentOf(orderStart)).toBe(graph.caller.spanId);
    const orderAnchor = orderStart.spanContext().spanId;
    const orderSpans = remote.filter((s) => s.attributes['weft.job.id'] === graph.job.id);
    expect(orderSpans.length).toBeGreaterThanOrEqual(4);
    for (const s of orderSpans) {
      expect(s.traceId).toBe(graph.caller.traceId);
      expect(s.parentSpanId).toBe(orderAnchor);
    }
    const attempts = orderSpans
      .filter((s) => s.name === 'weft.attempt charge')
      .sort((x, y) => Number(x.attributes['weft.attempt']) - Number(y.attributes['weft.attempt']));
    expect(attempts.map((a) => a.attributes['weft.attempt'])).toEqual([1, 2]);
    expect(attempts[0]?.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'card network down',
    });
    expect(attempts[0]?.events).toContain('exception');
    expect(attempts[1]?.attributes).toMatchObject({
      'weft.workflow': 'order',
      'weft.activity': 'charge',
    });
    const call = only(remote, 'charge.call');
    expect(call.traceId).toBe(graph.caller.traceId);
    expect(call.parentSpanId).toBe(attempts[1]?.spanId);
    const output = (await client.result(graph.job.id)).output as { active: string };
    expect(output.active).toBe(attempts[1]?.spanId);
    expect(only(orderSpans, 'weft.job order').attributes).toMatchObject({
      'weft.job.state': 'SUCCESS',
      'weft.workflow': 'order',
    });
    expect(only(orderSpans, 'weft.activity charge').attributes['weft.collation_key']).toMatch(
      /^\d+$/,
    );

    // Code-first: the same, for its step and attempt.
    const tripStart = only(local, 'weft.start trip');
    expect(parentOf(tripStart)).toBe(durable.caller.spanId);
    const tripSpans = remote.filter((s) => s.attributes['weft.job.id'] === durable.job.id);
    expect(tripSpans.map((s) => s.name).sort()).toEqual([
      'weft.attempt book',
      'weft.job trip',
      'weft.step book',
    ]);
    for (const s of tripSpans) {
      expect(s.traceId).toBe(durable.caller.traceId);
      expect(s.parentSpanId).toBe(tripStart.spanContext().spanId);
    }
  }, 120_000);

  it('a stopping weft worker sends the spans its SDK still buffers before it exits', async () => {
    const client = new Client(store);
    await client.deploy(order);
    worker = launchWeft(['worker', '--handlers', 'worker.mjs'], {
      store: location.url,
      cwd: dir,
      env: { WEFT_TEST_SPANS: spansFile, WEFT_TEST_SPANS_BATCH: '1' },
    });
    const { job } = await startInSpan(client, 'order', {});
    const done = await client.result(job.id, { wait: true, timeoutMs: 60_000 });
    expect(done.state, worker.err()).toBe('SUCCESS');
    // The batch processor holds them for a minute: none are written yet.
    expect(workerSpans()).toEqual([]);
    expect(await worker.stop('SIGTERM')).toBe(0);
    const names = workerSpans()
      .filter((s) => s.attributes['weft.job.id'] === job.id)
      .map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['weft.job order', 'weft.activity charge', 'weft.attempt charge']),
    );
  }, 120_000);
});
