/**
 * `ctx.idempotencyKey` names the activity, not the attempt: a handler that fails on its
 * first attempt and succeeds on its second sees the same key both times (what a payment
 * provider needs to charge once), and the attempt number apart in `ctx.attempt`. The
 * same holds for a code-first task and for a task handed to an HTTP agent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { type Serving, serve } from '../../../src/server/serve.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskContext } from '../../../src/worker/task-handler.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { HttpAgent } from '../server/http-agent.js';

/** A payment taken with a retry: the first attempt fails (the provider timed out). */
const payment = compileWorkflow(`
workflow: payment
activities:
  start:  { kind: trigger }
  charge: { kind: task, input: "{ 'amount': input.amount }", retry: { attempts: 3, backoff: 10ms } }
transitions:
  start: [charge]
output: "charge.output"
`);

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => close());

interface Seen {
  key: string;
  attempt: number;
}

describe('ctx.idempotencyKey', () => {
  it('is the same on every attempt of a graph task; the attempt is apart', async () => {
    await client.deploy(payment);
    const seen: Seen[] = [];
    const worker = new Worker({
      store,
      handlers: {
        charge: async (input, ctx) => {
          seen.push({ key: ctx.idempotencyKey, attempt: ctx.attempt });
          if (ctx.attempt === 1) throw new Error('provider timed out');
          return { charged: (input as { amount: number }).amount, key: ctx.idempotencyKey };
        },
      },
    });
    await worker.start();
    try {
      const job = await client.start('payment', { amount: 5 });
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done.state).toBe('SUCCESS');
      expect(seen).toEqual([
        { key: `${job.id}:charge:`, attempt: 1 },
        { key: `${job.id}:charge:`, attempt: 2 },
      ]);
      expect(done.output).toEqual({ charged: 5, key: `${job.id}:charge:` });
    } finally {
      await worker.stop();
    }
  });

  it('is given to a code-first task: the job and the work, no attempt', async () => {
    const seen: TaskContext[] = [];
    const charge = defineTask('charge-card', async (amount: number, ctx: TaskContext) => {
      seen.push(ctx);
      return { charged: amount, key: ctx.idempotencyKey };
    });
    const order = defineWorkflow(
      'order',
      class extends Workflow {
        async handle(amount: number) {
          return await this.execute(charge, amount);
        }
      },
    );
    const worker = new Worker({ store, workflows: [order], tasks: [charge] });
    await worker.start();
    try {
      const job = await client.start('order', [7]);
      const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(done.state).toBe('SUCCESS');
      expect(seen).toHaveLength(1);
      const [ctx] = seen as [TaskContext];
      expect(ctx.attempt).toBe(1);
      expect(ctx.job).toBe(job.id);
      expect(ctx.idempotencyKey).toBe(`${job.id}:${ctx.activity}:`);
      expect(done.output).toEqual({ charged: 7, key: ctx.idempotencyKey });
    } finally {
      await worker.stop();
    }
  });
});

describe('an agent task offer', () => {
  let serving: Serving;
  afterEach(async () => serving?.close());

  it('carries the same idempotencyKey on every attempt, beside its attempt', async () => {
    serving = await serve({
      store,
      port: 0,
      tasks: ['charge'],
      logger: { error() {}, info() {} },
    });
    const agent = new HttpAgent(serving.url);
    await client.deploy(payment);
    const job = await client.start('payment', { amount: 5 });

    const first = await agent.job('?tasks=charge&wait=30000');
    expect(first).toMatchObject({ action: 'TaskScheduled', attempt: 1 });
    expect(first.idempotencyKey).toBe(`${job.id}:charge:`);
    const failed = await agent.call('POST', `/tasks/${encodeURIComponent(first.uuid)}`, {
      status: 'failed',
      error: { name: 'Timeout', message: 'provider timed out' },
    });
    expect(failed.status).toBe(200);

    const second = await agent.job('?tasks=charge&wait=30000');
    expect(second).toMatchObject({ action: 'TaskScheduled', attempt: 2 });
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
    expect(
      (
        await agent.call('POST', `/tasks/${encodeURIComponent(second.uuid)}`, {
          status: 'completed',
          output: { charged: 5 },
        })
      ).status,
    ).toBe(200);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: { charged: 5 } });
  });
});
