/**
 * A graph job's execution timeout, step by step on a simulated clock: the deadline ends a
 * running job with its started activities on 7 in every thread, its paused hook on 7, its
 * pending ones left on 9, their records FAILURE, its task messages gone, one `deadline`
 * line; an `on_failure: revert` job ends FAILURE without reverting; a job that ends first
 * cancels its timer; bad limits are refused where they are written. And, through an
 * in-process worker, a dead letter's reopen puts the deadline back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { ValidationError, WorkflowDefinitionError } from '../../../src/core/errors.js';
import { defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { workflow } from '../../../src/engine/builder.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { Worker } from '../../../src/worker/worker.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

let store: Store;
let close: () => Promise<void>;
let clock: SimulatedClock;
let client: Client;

beforeEach(async () => {
  clock = new SimulatedClock();
  ({ store, close } = await openTestStore({ clock }));
  client = new Client(store, { clock });
});
afterEach(async () => close());

/** `work` has no handler here: its messages wait, as a task still running would. */
const WIDE = `
workflow: wide
timeout: 1m
activities:
  start:   { kind: trigger }
  fan:     { kind: spread, items: "input.items" }
  work:    { kind: task }
  approve: { kind: hook, signal: ok }
  after:   { kind: task, task: note }
transitions: { start: [fan, approve], fan: [work], approve: [after] }
`;

describe('a graph job past its deadline', () => {
  it('ends FAILURE: started and paused digits to 7, pending left 9, records failed, task messages gone', async () => {
    await client.deploy(compileWorkflow(WIDE));
    const job = await client.start('wide', { items: [1, 2, 3] });
    const stepper = new EngineStepper(store, { note: async () => 'noted' }, clock);
    await stepper.runUntilIdle();
    // Positions: after, approve, fan, start, work.
    expect(await stepper.key(job.id)).toBe('956680000000000');
    expect(await store.countMessages('task:work')).toBe(3);
    expect((await client.status(job.id)).deadline).toBe(
      new Date(job.createdAt + 60_000).toISOString(),
    );

    await clock.advance(59_999);
    await stepper.runUntilIdle();
    expect((await client.status(job.id)).state).toBe('RUNNING');
    await clock.advance(1);
    await stepper.runUntilIdle();

    const view = await client.status(job.id);
    expect(view.state).toBe('FAILURE');
    expect(view.collation).toBe('976670000000000');
    expect(view.error).toMatchObject({
      name: 'JobTimeoutError',
      code: 'JOB_TIMEOUT',
      job: job.id,
      timeoutMs: 60_000,
      activities: ['approve', 'work'],
    });
    const records = await store.listActivities(job.id);
    const work = records.filter((r) => r.activity === 'work');
    expect(work).toHaveLength(3);
    for (const r of [...work, ...records.filter((r) => r.activity === 'approve')]) {
      expect(r).toMatchObject({ status: 'FAILURE', error: { code: 'JOB_TIMEOUT' } });
    }
    expect(await store.countMessages('task:work')).toBe(0);
    const lines = await client.history(job.id);
    expect(lines.filter((l) => l.kind === 'deadline')).toHaveLength(1);
    expect(lines.find((l) => l.kind === 'deadline')?.change.digits).toEqual({
      approve: [5, 7],
      work: [8, 7],
    });
    expect(lines.at(-1)?.kind).toBe('end');
    // A signal that comes too late changes nothing.
    await expect(client.signal(job.id, 'ok')).rejects.toThrow(ValidationError);
  });

  it('with on_failure: revert it ends FAILURE at once: no revert runs', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: saga
timeout: 10s
on_failure: revert
activities:
  start: { kind: trigger }
  book:  { kind: task, revert: unbook }
  wait:  { kind: hook, signal: go }
transitions: { start: [book], book: [wait] }
`),
    );
    const reverted: string[] = [];
    const handlers: TaskHandlers = {
      book: async () => 'booked',
      unbook: async () => {
        reverted.push('unbook');
        return null;
      },
    };
    const job = await client.start('saga', {});
    const stepper = new EngineStepper(store, handlers, clock);
    await stepper.runUntilIdle();
    await clock.advance(10_000);
    await stepper.runUntilIdle();
    const view = await client.status(job.id);
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({ code: 'JOB_TIMEOUT', activities: ['wait'] });
    expect(reverted).toEqual([]);
  });

  it('a job that ends before its deadline cancels the timer', async () => {
    await client.deploy(
      workflow('quick')
        .timeout('1h')
        .trigger('start')
        .task('note')
        .transition('start', 'note')
        .compile(),
    );
    const job = await client.start('quick', {});
    expect(await store.nextTimerAt()).toBe(job.createdAt + 3_600_000);
    await new EngineStepper(store, { note: async () => 'noted' }, clock).runUntilIdle();
    expect((await client.status(job.id)).state).toBe('SUCCESS');
    expect(await store.nextTimerAt()).toBeUndefined();
    expect((await client.history(job.id))[0]?.change).toMatchObject({ timeoutMs: 3_600_000 });
  });

  it('Client.start({ timeoutMs }) overrides the workflow’s, and bad limits are refused', async () => {
    await client.deploy(compileWorkflow(WIDE));
    const job = await client.start('wide', { items: [] }, { timeoutMs: 5 });
    expect((await client.status(job.id)).timeoutMs).toBe(5);
    for (const timeoutMs of [0, 1.5, -1, 1e12]) {
      await expect(client.start('wide', { items: [] }, { timeoutMs })).rejects.toThrow(
        ValidationError,
      );
    }
    for (const timeout of ['0', '0s', '5x', '-1s']) {
      expect(() =>
        compileWorkflow(`
workflow: bad
timeout: ${timeout}
activities: { start: { kind: trigger } }
`),
      ).toThrow(WorkflowDefinitionError);
    }
    expect(() =>
      defineWorkflow(
        'bad',
        class extends Workflow {
          async handle() {}
        },
        { timeoutMs: 0 },
      ),
    ).toThrow(ValidationError);
  });
});

describe('a dead letter of a job with a deadline', () => {
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  it('ends it and cancels the timer; its requeue reopens it under the same deadline', async () => {
    const real = await openTestStore();
    try {
      const realClient = new Client(real.store);
      await realClient.deploy(
        compileWorkflow(`
workflow: fragile
timeout: 1h
activities:
  start: { kind: trigger }
  work:  { kind: task }
transitions: { start: [work] }
`),
      );
      const job = await realClient.start('fragile', {});
      const deadline = job.createdAt + 3_600_000;
      const quiet = { error() {}, warn() {}, info() {} };
      // A worker without the task's handler runs the trigger: the task message waits.
      worker = new Worker({ store: real.store, idleMs: 50, logger: quiet, handlers: {} });
      await worker.start();
      await waitFor(async () => (await real.store.countMessages('task:work')) === 1, 'the task');
      await worker.stop();
      // Two holders die with the task: the next worker dead-letters it (maxDeliveries 2).
      for (let i = 0; i < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
        const [m] = await real.store.claim('task:work', { consumer: 'ghost', leaseMs: 1 });
        expect(m).toBeDefined();
      }
      await new Promise((r) => setTimeout(r, 20));
      worker = new Worker({
        store: real.store,
        idleMs: 50,
        maxDeliveries: 2,
        logger: quiet,
        handlers: { work: async () => 'done' },
      });
      await worker.start();
      const failed = await realClient.result(job.id, { wait: true, timeoutMs: 30_000 });
      expect(failed.error).toMatchObject({ code: 'DEAD_LETTER' });
      expect(await real.store.nextTimerAt()).toBeUndefined();

      await worker.stop();
      worker = undefined;
      const [dead] = await realClient.deadLetters();
      await realClient.requeueDeadLetter(dead?.id as string);
      expect(await real.store.nextTimerAt()).toBe(deadline);
      expect((await realClient.status(job.id)).deadline).toBe(new Date(deadline).toISOString());
    } finally {
      await real.close();
    }
  });
});
