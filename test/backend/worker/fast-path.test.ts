/**
 * The worker's fast path: a job's next steps run inline in the transaction that entered
 * them, and task messages are appended already claimed by the worker that runs them. The
 * same steps run, each once (the semaphores say so), and the job ends exactly as it does
 * one message at a time — with fewer messages and commits in between.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { GraphEngine } from '../../../src/engine/graph-engine.js';
import { ENGINE_STREAM, type EngineMessage, taskStream } from '../../../src/engine/messages.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { semaphoresOf } from '../../support/semaphores.js';
import { openTestStore } from '../../support/store-under-test.js';

const line = compileWorkflow(`
workflow: line
activities:
  start: { kind: trigger }
  s1: { kind: task, task: add, input: "input.n" }
  s2: { kind: task, task: add, input: "s1.output" }
  s3: { kind: task, task: add, input: "s2.output" }
transitions:
  start: [s1]
  s1: [s2]
  s2: [s3]
output: "s3.output"
`);

const fan = compileWorkflow(`
workflow: fan5
activities:
  start: { kind: trigger }
  a: { kind: task, task: add }
  b: { kind: task, task: add }
  c: { kind: task, task: add }
  d: { kind: task, task: add }
  e: { kind: task, task: add }
transitions:
  start: [a, b, c, d, e]
`);

const handlers = { add: async (n: unknown) => (typeof n === 'number' ? n + 1 : 1) };

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(line);
  await client.deploy(fan);
});
afterEach(async () => close());

async function runTrigger(engine: GraphEngine): Promise<void> {
  const [message] = await store.claim(ENGINE_STREAM, { consumer: 't', leaseMs: 60_000 });
  await store.transaction(async (tx) => {
    await engine.handle(tx, message?.payload as unknown as EngineMessage);
    await tx.ack(ENGINE_STREAM, message?.id as string, 't');
  });
}

const semaphores = (job: string) => semaphoresOf(store, job);

describe('inline steps', () => {
  it('runs the trigger and enters the first task in one transaction, with no engine message between', async () => {
    const job = await client.start('line', { n: 1 });
    await runTrigger(new GraphEngine({ inlineSteps: 64 }));
    expect(await store.countMessages(ENGINE_STREAM)).toBe(0);
    const [task] = await store.peek(taskStream('add'));
    expect(task?.payload).toMatchObject({ job: job.id, a: 's1', input: 1 });
    expect((await client.status(job.id)).activities.find((a) => a.id === 's1')?.state).toBe(
      'Started',
    );
  });

  it('appends what is past the budget to the engine stream as before', async () => {
    await client.start('fan5', {});
    await runTrigger(new GraphEngine({ inlineSteps: 2 }));
    expect(await store.countMessages(taskStream('add'))).toBe(2);
    expect(await store.countMessages(ENGINE_STREAM)).toBe(3);
  });

  it('ends a job with the same key, output and semaphores as running one message at a time', async () => {
    const stepped = await client.start('line', { n: 10 });
    await new EngineStepper(store, handlers).runUntilIdle();
    const worker = new Worker({ store, handlers, concurrency: 4 });
    await worker.start();
    const fast = await client.start('line', { n: 10 });
    try {
      await client.result(fast.id, { wait: true, timeoutMs: 30_000 });
    } finally {
      await worker.stop();
    }
    const [a, b] = [await client.status(stepped.id), await client.status(fast.id)];
    expect(b.state).toBe('SUCCESS');
    expect(b.output).toBe(13);
    expect(b.output).toEqual(a.output);
    expect(b.collation).toEqual(a.collation);
    expect(await semaphores(fast.id)).toEqual(await semaphores(stepped.id));
    expect(Object.values(await semaphores(fast.id)).every((s) => s.startsWith('88'))).toBe(true);
  });
});

describe('follow-up work', () => {
  it('appends every task message already claimed by the worker that runs it, so no direct claim finds one', async () => {
    const directTaskClaims: number[] = [];
    const watched = new Proxy(store, {
      get(target, property) {
        if (property === 'claim') {
          return async (stream: string, options: Parameters<Store['claim']>[1]) => {
            const claimed = await target.claim(stream, options);
            if (stream.startsWith('task:')) directTaskClaims.push(claimed.length);
            return claimed;
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const worker = new Worker({ store: watched, handlers, concurrency: 8 });
    await worker.start();
    try {
      const jobs = await Promise.all([1, 2, 3].map((n) => client.start('line', { n })));
      const done = await Promise.all(
        jobs.map((j) => client.result(j.id, { wait: true, timeoutMs: 30_000 })),
      );
      expect(done.map((j) => j.output)).toEqual([4, 5, 6]);
    } finally {
      await worker.stop();
    }
    expect(directTaskClaims.filter((n) => n > 0)).toEqual([]);
    expect(await store.countMessages()).toBe(0);
  });
});
