/**
 * A job that runs again waits for its queue's slot like a start: a rerun (graph and
 * code-first) waits where its source waited, and so does a job a requeued dead letter
 * reopens. Before, both ran at once beside the job holding a one-slot queue's slot. The
 * place comes from the job's `queued` history line (its item is gone once it ends).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow, withQueue } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const WORK = compileWorkflow(`
workflow: work
activities:
  start: { kind: trigger }
  work:  { kind: task, input: "input" }
transitions:
  start: [work]
`);

let store: Store;
let close: () => Promise<void>;
let client: Client;
let worker: Worker | undefined;
/** The names task `work` (and code-first `step`) ran for, in order. */
let ran: string[];
/** The run named `blocker` waits for this. */
let release: () => void;
let released: Promise<void>;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(WORK);
  await client.queues.create({ name: 'solo', concurrency: 1 });
  ran = [];
  released = new Promise((resolve) => {
    release = resolve;
  });
});
afterEach(async () => {
  release();
  await worker?.stop();
  worker = undefined;
  await close();
});

const quiet = { error() {}, warn() {}, info() {} };

async function run(name: string): Promise<string> {
  ran.push(name);
  if (name === 'blocker') await released;
  return name;
}

const step = defineTask('step', (name: string) => run(name));
const flow = defineWorkflow(
  'flow',
  class extends Workflow {
    async handle(name: string) {
      return this.execute(step, name);
    }
  },
);

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]> = {}) {
  worker = new Worker({
    store,
    idleMs: 50,
    logger: quiet,
    handlers: { work: async (input) => run((input as { name: string }).name) },
    workflows: [flow],
    tasks: [step],
    ...options,
  });
  await worker.start();
  return worker;
}

const result = (id: string) => client.result(id, { wait: true, timeoutMs: 30_000 });

/** Starts `blocker` on the queue and waits until it holds the slot, its task running. */
async function holdTheSlot(): Promise<string> {
  const blocker = await client.start('work', { name: 'blocker' }, { queue: 'solo' });
  await waitFor(() => ran.includes('blocker'), 'the blocker to run');
  return blocker.id;
}

/** The job waits in line in `solo`, and its task has not run. */
async function expectWaiting(id: string, name: string): Promise<void> {
  const view = await client.status(id);
  expect(view.queue).toMatchObject({ name: 'solo', state: 'waiting' });
  expect(ran.filter((n) => n === name)).toHaveLength(1);
}

describe('a job that runs again waits for its queue', () => {
  it('a graph rerun waits where its source waited, then runs', async () => {
    await startWorker();
    const first = await client.start('work', { name: 'first' }, { queue: 'solo' });
    expect((await result(first.id)).state).toBe('SUCCESS');
    // Its history says where it waited.
    const lines = await client.history(first.id);
    expect(lines.find((l) => l.kind === 'queued')?.change).toEqual({
      queue: 'solo',
      key: '',
      priority: 0,
    });

    const blocker = await holdTheSlot();
    const { job: again } = await client.rerun(first.id, 'work');
    // Give a worker every chance to run it around the queue.
    await new Promise((r) => setTimeout(r, 300));
    await expectWaiting(again.id, 'first');

    release();
    expect((await result(blocker)).state).toBe('SUCCESS');
    expect(await result(again.id)).toMatchObject({ state: 'SUCCESS', output: { work: 'first' } });
    expect(ran).toEqual(['first', 'blocker', 'first']);
  });

  it('a code-first rerun waits where its source waited, then runs', async () => {
    await startWorker();
    const first = await client.start(withQueue(flow, { name: 'solo' }), ['first']);
    expect((await result(first.id)).state).toBe('SUCCESS');

    const blocker = await holdTheSlot();
    const from = (await client.history(first.id)).find((l) => l.name === 'step')?.activity;
    const { job: again } = await client.rerun(first.id, from as string);
    await new Promise((r) => setTimeout(r, 300));
    await expectWaiting(again.id, 'first');

    release();
    expect((await result(blocker)).state).toBe('SUCCESS');
    expect(await result(again.id)).toMatchObject({ state: 'SUCCESS', output: 'first' });
  });

  it('a job a requeued dead letter reopens takes a slot again: it waits while the slot is held', async () => {
    // A worker without the handler runs the engine steps; the task waits in its stream.
    await startWorker({ handlers: {}, workflows: [], tasks: [] });
    const doomed = await client.start('work', { name: 'doomed' }, { queue: 'solo' });
    await waitFor(async () => (await store.countMessages('task:work')) === 1);
    await worker?.stop();
    // Two holders die with the message; the next claim dead-letters it.
    for (let i = 0; i < 2; i++) {
      await store.claim('task:work', { consumer: 'ghost', leaseMs: 1 });
      await new Promise((r) => setTimeout(r, 5));
    }
    await startWorker({ maxDeliveries: 2 });
    expect((await result(doomed.id)).state).toBe('FAILURE');
    const [dead] = await client.deadLetters();
    expect(dead?.job).toBe(doomed.id);

    const blocker = await holdTheSlot();
    expect(await client.requeueDeadLetter(dead?.id as string)).toMatchObject({ reopened: true });
    await new Promise((r) => setTimeout(r, 300));
    const view = await client.status(doomed.id);
    expect(view.state).toBe('RUNNING');
    expect(view.queue).toMatchObject({ name: 'solo', state: 'waiting' });
    expect(ran).not.toContain('doomed');

    release();
    expect((await result(blocker)).state).toBe('SUCCESS');
    expect(await result(doomed.id)).toMatchObject({ state: 'SUCCESS', output: { work: 'doomed' } });
  });
});
