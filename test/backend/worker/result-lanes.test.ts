/**
 * Result lanes (`WorkerOptions.resultLanes`): a worker commits task results in groups, and
 * with more than one lane a group starts while an earlier one is still committing, on
 * another connection. Every step still runs once and every job ends as it would with one
 * lane — also when two lanes hold results of the same job (a fan-out's branches).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { overriding } from '../../../src/store/overriding.js';
import type { Store, StoreTx } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { resultLanesOf } from '../../../src/worker/worker-options.js';
import { semaphoresOf } from '../../support/semaphores.js';
import { backend, openTestStore } from '../../support/store-under-test.js';

const fan = compileWorkflow(`
workflow: lanes-fan
activities:
  start: { kind: trigger }
  a: { kind: task, task: work, input: "input.n" }
  b: { kind: task, task: work, input: "input.n" }
  c: { kind: task, task: work, input: "input.n" }
  d: { kind: task, task: work, input: "input.n" }
  join: { kind: task, task: work, join: all, input: "a.output + b.output + c.output + d.output" }
transitions:
  start: [a, b, c, d]
  a: [join]
  b: [join]
  c: [join]
  d: [join]
output: "join.output"
`);

let store: Store;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => close());

/**
 * `store` whose first result commit (a transaction that acks task messages) stays open
 * until a second one has acked its own: it resolves `holding` when the first is held
 * open, and `met` when the two were open at once.
 */
function rendezvousStore(inner: Store): {
  store: Store;
  holding: Promise<void>;
  met: Promise<void>;
} {
  let first: (() => void) | undefined;
  let meet: () => void = () => {};
  const met = new Promise<void>((resolve) => {
    meet = resolve;
  });
  let hold: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    hold = resolve;
  });
  let seen = 0;
  const ackMany = (tx: StoreTx) => async (stream: string, ids: string[], consumer: string) => {
    const acked = await tx.ackMany(stream, ids, consumer);
    if (!stream.startsWith('task:')) return acked;
    seen++;
    if (seen === 1) {
      // Held open (a slow server, say) until another lane commits results beside it.
      await new Promise<void>((resolve) => {
        first = resolve;
        hold();
      });
    } else if (seen === 2) {
      meet();
      first?.();
    }
    return acked;
  };
  const wrapped = overriding(inner, {
    transaction: <T>(fn: (tx: StoreTx) => Promise<T>) =>
      inner.transaction((tx) => fn(overriding(tx, { ackMany: ackMany(tx) }))),
  });
  return { store: wrapped, holding, met };
}

const semaphores = (job: string) => semaphoresOf(store, job);

describe('result lanes', () => {
  it('defaults to one lane', () => {
    expect(resultLanesOf({})).toBe(1);
    expect(resultLanesOf({ resultLanes: 2 })).toBe(2);
    expect(resultLanesOf({ resultLanes: 0 })).toBe(1);
  });

  it('runs every step once when several lanes commit results of the same jobs', async () => {
    const client = new Client(store);
    await client.deploy(fan);
    const worker = new Worker({
      store,
      handlers: { work: async (n: unknown) => (typeof n === 'number' ? n + 1 : 1) },
      resultLanes: 3,
    });
    await worker.start();
    try {
      const jobs = await Promise.all(
        Array.from({ length: 30 }, (_, n) => client.start('lanes-fan', { n })),
      );
      for (const [n, job] of jobs.entries()) {
        const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
        expect(done.state).toBe('SUCCESS');
        expect(done.output).toBe(4 * (n + 1) + 1);
        // Each task entered once and left once; the trigger as a trigger ends.
        expect(await semaphores(job.id)).toEqual({
          'a//sem': '888:1/1',
          'b//sem': '888:1/1',
          'c//sem': '888:1/1',
          'd//sem': '888:1/1',
          'join//sem': '888:1/1',
          'start//sem': '889:0/0',
        });
      }
    } finally {
      await worker.stop();
    }
  });

  it.skipIf(backend === 'sqlite')(
    'starts a result commit while an earlier one is still committing',
    async () => {
      const { store: slow, holding, met } = rendezvousStore(store);
      const client = new Client(store);
      await client.deploy(fan);
      const worker = new Worker({
        store: slow,
        handlers: { work: async (n: unknown) => (typeof n === 'number' ? n + 1 : 1) },
        resultLanes: 2,
      });
      await worker.start();
      try {
        // One job first, so its first result commit holds that job's result alone (four
        // jobs started at once could all land in one commit, and no second would come).
        const jobs = [await client.start('lanes-fan', { n: 0 })];
        await holding;
        // The other jobs' results arrive while it is held: they can only go to another
        // lane. With one lane the first commit would wait for ever.
        for (let n = 1; n < 4; n++) jobs.push(await client.start('lanes-fan', { n }));
        await met;
        for (const job of jobs) {
          const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
          expect(done.state).toBe('SUCCESS');
        }
      } finally {
        await worker.stop();
      }
    },
  );
});
