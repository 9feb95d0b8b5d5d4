/**
 * Code-first workflows on the store, through the real Worker: the order example to its
 * end, events, pause/resume/terminate, idempotent start, child workflows, and 1,000
 * sequential and parallel tasks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chargeCard,
  orderWorkflow,
  reserveStock,
  sendEmail,
  shipOrder,
} from '../../../examples/code-first-order.js';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;
let worker: Worker | undefined;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]>) {
  worker = new Worker({ store, idleMs: 200, ...options });
  await worker.start();
  return worker;
}

const order = {
  id: 'o-1',
  email: 'ana@example.com',
  address: '1 Main St',
  amount: 42,
  lines: [
    { sku: 'a', qty: 1 },
    { sku: 'b', qty: 2 },
  ],
};

const instanceOf = async (id: string) => (await readInstance(store, id)) as Instance;

describe('code-first runtime', () => {
  it('runs the order example to its end once the approval event arrives', async () => {
    await startWorker({
      workflows: [orderWorkflow],
      tasks: [reserveStock, chargeCard, shipOrder, sendEmail],
    });
    const job = await client.start('order', [order], { id: 'order-o-1' });
    await waitFor(async () => (await instanceOf(job.id)).waits.length === 1);
    await client.sendEvent(job.id, 'approved', { by: 'ana' });
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toMatchObject({
      status: 'shipped',
      approvedBy: 'ana',
      receipt: 'R-o-1',
      tracking: 'T-o-1',
    });
    const instance = await instanceOf(job.id);
    expect(instance.branches[0]?.type).toBe('handle');
    expect(instance.statuses.filter((s) => s.type === 'task')).toHaveLength(5);
    // Starting the same id again returns the same job.
    expect((await client.start('order', [order], { id: 'order-o-1' })).state).toBe('SUCCESS');
    const view = await client.status(job.id);
    expect(view.instance).toMatchObject({ workflow_name: 'order', state: 'completed' });
    // The email is dispatched without waiting, so it may still be running when the job
    // ends; it finishes afterwards and leaves nothing behind.
    await waitFor(async () => (await store.countMessages()) === 0);
    const email = (await instanceOf(job.id)).statuses.find((s) => s.name === 'send-email');
    expect(email).toMatchObject({ status: 'completed', output: { sent: true } });
  });

  it('pauses (actions buffer), resumes, and terminates', async () => {
    await startWorker({
      workflows: [orderWorkflow],
      tasks: [reserveStock, chargeCard, shipOrder, sendEmail],
    });
    const job = await client.start('order', [order]);
    await waitFor(async () => (await instanceOf(job.id)).waits.length === 1);
    expect((await client.pause(job.id)).state).toBe('SUSPENDED');
    await client.sendEvent(job.id, 'approved', { by: 'bo' });
    expect((await instanceOf(job.id)).buffer.length).toBeGreaterThan(0);
    expect((await client.resume(job.id)).state).toBe('RUNNING');
    expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe('SUCCESS');

    const other = await client.start('order', [order]);
    await waitFor(async () => (await instanceOf(other.id)).waits.length === 1);
    const ended = await client.terminate(other.id);
    expect(ended.state).toBe('FAILURE');
    expect((await instanceOf(other.id)).state).toBe('terminated');
  });

  it('runs child workflows and returns their output', async () => {
    const double = defineTask('double', async (n: number) => n * 2);
    const child = defineWorkflow(
      'child',
      class extends Workflow {
        async handle(n: number) {
          return this.execute(double, n);
        }
      },
    );
    const parent = defineWorkflow(
      'parent',
      class extends Workflow {
        async handle(n: number) {
          const [a, b] = await this.execute([child, n], [child, n + 1]);
          return a + b;
        }
      },
    );
    await startWorker({ workflows: [parent, child], tasks: [double] });
    const job = await client.start('parent', [5]);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 22 });
    expect(await client.list({ parentId: job.id })).toHaveLength(2);
  });

  it('runs 1,000 sequential tasks and 1,000 parallel tasks', async () => {
    const inc = defineTask('inc', async (n: number) => n + 1);
    const sequential = defineWorkflow(
      'sequential',
      class extends Workflow {
        async handle(count: number) {
          let n = 0;
          for (let i = 0; i < count; i++) n = await this.execute(inc, n);
          return n;
        }
      },
    );
    const parallel = defineWorkflow(
      'parallel',
      class extends Workflow {
        async handle(count: number) {
          const outs = await this.execute(
            ...Array.from({ length: count }, (_, i) => [inc, i] as const),
          );
          return outs.reduce((a, b) => a + b, 0);
        }
      },
    );
    await startWorker({ workflows: [sequential, parallel], tasks: [inc], concurrency: 50 });
    const seq = await client.start('sequential', [1000]);
    const par = await client.start('parallel', [1000]);
    expect(await client.result(seq.id, { wait: true, timeoutMs: 240_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 1000,
    });
    expect(await client.result(par.id, { wait: true, timeoutMs: 240_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 500_500,
    });
  }, 300_000);
});
