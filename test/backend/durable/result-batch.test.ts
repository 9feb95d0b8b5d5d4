/**
 * A batch of code-first task results in one transaction (DurableRuntime.taskResults →
 * DurableEngine.actBatch): every result is applied exactly once, a result that cannot be
 * (its job ended, a stale uuid, a duplicate) changes nothing and does not lose the others,
 * and the starts of the tasks the results scheduled ride in the same unit when held.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableEngine } from '../../../src/durable/durable-engine.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import type { TaskMessage, TaskResponse } from '../../../src/engine/messages.js';
import { DurableRuntime } from '../../../src/models/durable-runtime.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const step = defineTask('batch-step', async (n: number) => n + 1);
const twoSteps = defineWorkflow(
  'batch-two',
  class extends Workflow {
    async handle(n: number) {
      const a = await this.execute(step, n);
      return await this.execute(step, a);
    }
  },
);

let store: Store;
let close: () => Promise<void>;
let engine: DurableEngine;
let runtime: DurableRuntime;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  engine = new DurableEngine({ workflows: [twoSteps], worker: 'w-batch' });
  runtime = new DurableRuntime(engine);
});
afterEach(async () => {
  await close();
});

const instanceOf = async (id: string) => (await readInstance(store, id)) as Instance;

async function start(id: string, n: number): Promise<void> {
  await store.transaction((tx) =>
    runtime.start(tx, { id, workflow: 'batch-two', definition: undefined, input: n }),
  );
}

/** The task messages waiting, by job. */
async function claimTasks(): Promise<Map<string, TaskMessage>> {
  const claimed = await store.claim('task:batch-step', {
    consumer: 'w-batch',
    max: 100,
    leaseMs: 60_000,
  });
  return new Map(
    claimed.map((m) => {
      const task = m.payload as unknown as TaskMessage;
      return [task.job, task];
    }),
  );
}

/** The statuses of a job's task lines, in history order. */
async function taskLines(job: string): Promise<string[]> {
  const lines = await store.historyOfJob(job);
  return lines
    .filter((l) => l.kind === 'task')
    .map((l) => String((l.change as { status?: string }).status));
}

function success(task: TaskMessage, output: number): TaskResponse {
  return { job: task.job, a: task.a, d: task.d, attempt: task.attempt, status: 'success', output };
}

describe('a batch of code-first task results', () => {
  it('applies each result once; an ended job, a stale uuid and a duplicate lose no other result', async () => {
    for (const [id, n] of [
      ['job-a', 1],
      ['job-b', 10],
      ['job-c', 100],
      ['job-d', 1000],
    ] as const) {
      await start(id, n);
    }
    const tasks = await claimTasks();
    expect([...tasks.keys()].sort()).toEqual(['job-a', 'job-b', 'job-c', 'job-d']);
    // job-b ends before its result arrives.
    await store.transaction((tx) => engine.control(tx, 'job-b', 'terminate'));
    const a = tasks.get('job-a') as TaskMessage;
    const b = tasks.get('job-b') as TaskMessage;
    const c = tasks.get('job-c') as TaskMessage;
    const d = tasks.get('job-d') as TaskMessage;
    await store.transaction((tx) =>
      runtime.taskResults(tx, [
        success(a, 2),
        // The same result twice in one batch: its Leg2 refuses the second.
        success(a, 2),
        success(b, 11),
        // A uuid job-c never scheduled.
        { ...success(c, 101), a: 'not-a-work-of-job-c' },
        success(d, 1001),
      ]),
    );
    const jobA = await instanceOf('job-a');
    const jobC = await instanceOf('job-c');
    const jobD = await instanceOf('job-d');
    // Each applied result completed its task and scheduled the next one.
    for (const instance of [jobA, jobD]) {
      const tasksOf = instance.statuses.filter((s) => s.type === 'task');
      expect(tasksOf).toHaveLength(2);
      expect(tasksOf[0]?.status).toBe('completed');
      expect(tasksOf[1]?.status).not.toBe('completed');
    }
    expect(jobA.statuses.find((s) => s.uuid === a.a)?.output).toBe(2);
    expect(jobD.statuses.find((s) => s.uuid === d.a)?.output).toBe(1001);
    // job-c still waits for its one task; job-b stays ended.
    expect(jobC.statuses.filter((s) => s.type === 'task')).toHaveLength(1);
    expect(jobC.statuses[0]?.status).not.toBe('completed');
    expect((await store.getJob('job-b'))?.state).toBe('FAILURE');
    const next = await claimTasks();
    expect([...next.keys()].sort()).toEqual(['job-a', 'job-d']);
    // job-a's history holds its result once.
    expect(await taskLines('job-a')).toEqual(['completed']);

    // The second results, with the first's starts reported in the same transaction
    // (held, then settled, as the task runner does): both jobs end, each once.
    await store.transaction(async (tx) => {
      await runtime.taskResults(
        tx,
        [...next.values()].map((t) => success(t, 0)),
        true,
      );
      await runtime.settle(tx);
    });
    for (const id of ['job-a', 'job-d']) {
      const job = await store.getJob(id);
      expect(job?.state).toBe('SUCCESS');
      expect(job?.output).toBe(0);
    }
  });

  it('plans the starts of the tasks its results scheduled into the same unit when held', async () => {
    await start('job-e', 1);
    await start('job-f', 2);
    const first = await claimTasks();
    await store.transaction(async (tx) => {
      await runtime.taskResults(
        tx,
        [...first.values()].map((t) => success(t, 5)),
        true,
      );
      // The task runner claims what the results appended, reports their starts, settles.
      const claimed = await tx.claim('task:batch-step', {
        consumer: 'w-batch',
        max: 10,
        leaseMs: 60_000,
      });
      expect(claimed).toHaveLength(2);
      await runtime.tasksStarted(
        tx,
        claimed.map((m) => m.payload as unknown as TaskMessage),
      );
      await runtime.settle(tx);
    });
    for (const id of ['job-e', 'job-f']) {
      const tasksOf = (await instanceOf(id)).statuses.filter((s) => s.type === 'task');
      expect(tasksOf.map((s) => [s.status, s.started === true])).toEqual([
        ['completed', false],
        ['scheduled', true],
      ]);
      expect(await taskLines(id)).toEqual(['completed', 'started']);
    }
  });
});
