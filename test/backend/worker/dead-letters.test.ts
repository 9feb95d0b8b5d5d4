/**
 * A dead-lettered message ends its job: an engine step that keeps failing, or a task
 * message whose holders kept dying, is moved to the dead letters after `maxDeliveries`
 * and its job (graph or code-first) ends in FAILURE with a DeadLetterError naming the
 * message and its last error, so `result --wait` returns. Requeueing the dead letter
 * reopens the job and a worker finishes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
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

const quiet = { error() {}, warn() {}, info() {} };

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]>) {
  worker = new Worker({ store, idleMs: 100, maxDeliveries: 2, logger: quiet, ...options });
  await worker.start();
  return worker;
}

async function stopWorker() {
  await worker?.stop();
  worker = undefined;
}

/** Plays a worker that claims a message and dies with it, `times` times. */
async function dieHolding(stream: string, times: number, lastError?: string) {
  for (let i = 0; i < times; i++) {
    const [message] = await store.claim(stream, { consumer: 'ghost', leaseMs: 1 });
    expect(message).toBeDefined();
    if (i === times - 1 && lastError && message) {
      await store.release(stream, message.id, 'ghost', 0, { name: 'Error', message: lastError });
    } else {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

const result = (id: string) => client.result(id, { wait: true, timeoutMs: 30_000 });

describe('dead letters end their jobs', () => {
  it('an engine step that keeps failing: the job ends FAILURE naming the message and its error', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: bad-input
activities:
  start: { kind: trigger }
  bad:   { kind: await, workflow: nowhere }
transitions:
  start: [bad]
`),
    );
    await startWorker({ handlers: { work: async () => 1 } });
    const job = await client.start('bad-input', {});
    const done = await result(job.id);
    expect(done.state).toBe('FAILURE');
    const [dead] = await client.deadLetters();
    expect(dead).toMatchObject({ job: job.id, stream: 'engine', deliveries: 2 });
    // (A failing expression is not such a step: it fails its activity at once.)
    expect(dead?.lastError?.message).toContain('workflow "nowhere" is not deployed');
    expect(done.error).toMatchObject({
      name: 'DeadLetterError',
      code: 'DEAD_LETTER',
      messageId: dead?.id,
      stream: 'engine',
    });
    expect(done.error?.message).toMatch(
      new RegExp(
        `^message ${dead?.id} on engine \\(activity \\w+\\) was dead-lettered after 2 deliveries; last error: .*is not deployed`,
      ),
    );
    // The key says FAILURE too: the message's activity is on 7.
    expect((await client.status(job.id)).collation).toContain('7');
  });

  it('a task message whose holders died: FAILURE on 7, and a requeue lets the job finish', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: one-task
activities:
  start: { kind: trigger }
  work:  { kind: task }
transitions:
  start: [work]
`),
    );
    // A worker without the handler runs the engine steps; the task waits in its stream.
    await startWorker({});
    const job = await client.start('one-task', {});
    await waitFor(async () => (await store.countMessages('task:work')) === 1);
    await stopWorker();
    await dieHolding('task:work', 2, 'out of memory');

    await startWorker({ handlers: { work: async () => ({ worked: true }) } });
    const failed = await result(job.id);
    expect(failed.state).toBe('FAILURE');
    const [dead] = await client.deadLetters();
    expect(dead).toMatchObject({ job: job.id, stream: 'task:work', deliveries: 3 });
    expect(failed.error).toMatchObject({
      code: 'DEAD_LETTER',
      messageId: dead?.id,
      activity: 'work',
    });
    expect(failed.error?.message).toBe(
      `message ${dead?.id} on task:work (activity work) was dead-lettered after 3 deliveries; last error: Error: out of memory`,
    );
    // Positions: start, work.
    expect((await client.status(job.id)).collation).toBe('670000000000000');

    const requeued = await client.requeueDeadLetter(dead?.id as string);
    expect(requeued).toMatchObject({ reopened: true });
    expect(await client.deadLetters()).toEqual([]);
    const done = await result(job.id);
    expect(done).toMatchObject({
      state: 'SUCCESS',
      error: null,
      output: { work: { worked: true } },
    });
    expect((await client.status(job.id)).collation).toBe('660000000000000');
  });

  it('a code-first task message whose holders died fails the instance; a requeue completes it', async () => {
    const inc = defineTask('inc', async (n: number) => n + 1);
    const counter = defineWorkflow(
      'counter',
      class extends Workflow {
        async handle(n: number) {
          return this.execute(inc, n);
        }
      },
    );
    await startWorker({ workflows: [counter] });
    const job = await client.start('counter', [41]);
    await waitFor(async () => (await store.countMessages('task:inc')) === 1);
    await stopWorker();
    await dieHolding('task:inc', 2);

    await startWorker({ workflows: [counter], tasks: [inc] });
    const failed = await result(job.id);
    expect(failed.state).toBe('FAILURE');
    const [dead] = await client.deadLetters();
    expect(failed.error).toMatchObject({ code: 'DEAD_LETTER', messageId: dead?.id });
    expect(failed.error?.message).toContain('last error: none recorded');

    await client.requeueDeadLetter(dead?.id as string);
    expect(await result(job.id)).toMatchObject({ state: 'SUCCESS', output: 42 });
  });

  it('requeueing an unknown dead letter is a NotFoundError', async () => {
    await expect(client.requeueDeadLetter('12345')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
