/**
 * Suspend and resume (TaskFlow's flow machine), graph and code-first alike: a pause while
 * three task handlers run moves the job to SUSPENDING, records their results as they
 * finish, moves it to SUSPENDED once none runs, starts nothing new meanwhile (its waiting
 * work is kept, not dropped), and a resume carries it on to SUCCESS.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { InvalidStateError } from '../../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const fan = compileWorkflow(`
workflow: fan
activities:
  start: { kind: trigger }
  a:     { kind: task, task: slow, input: "{ 'n': 1 }" }
  b:     { kind: task, task: slow, input: "{ 'n': 2 }" }
  c:     { kind: task, task: slow, input: "{ 'n': 3 }" }
  join:  { kind: task, task: sum, input: "a.output + b.output + c.output" }
transitions:
  start: [a, b, c]
  a: [join]
  b: [join]
  c: [join]
output: "join.output"
`);

/** Handlers that block until released, logging every start. */
function gate() {
  const started: string[] = [];
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    started,
    open: () => open(),
    async slow(input: unknown) {
      const { n } = input as { n: number };
      started.push(`slow ${n}`);
      await opened;
      return n * 10;
    },
  };
}

let store: Store;
let close: () => Promise<void>;
let client: Client;
let worker: Worker | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(fan);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

const stateOf = async (id: string) => (await store.getJob(id))?.state;

describe.skipIf(skipBackend)('suspend and resume', () => {
  it('graph: pause while three handlers run, their results recorded, SUSPENDED, resume, SUCCESS', async () => {
    const g = gate();
    const sums: unknown[] = [];
    worker = new Worker({
      store,
      idleMs: 100,
      concurrency: 10,
      handlers: {
        slow: g.slow,
        sum: async (input) => {
          sums.push(input);
          return input;
        },
      },
    });
    await worker.start();
    const job = await client.start('fan', {});
    await waitFor(() => g.started.length === 3, 'three handlers running');
    expect((await client.pause(job.id)).state).toBe('SUSPENDING');
    // Resuming before the running handlers finish is an illegal SUSPENDING -> RUNNING.
    await expect(client.resume(job.id)).rejects.toThrow(InvalidStateError);
    g.open();
    await waitFor(async () => (await stateOf(job.id)) === 'SUSPENDED', 'SUSPENDED');
    for (const [a, n] of [
      ['a', 10],
      ['b', 20],
      ['c', 30],
    ] as const) {
      expect(await store.getActivity(job.id, a)).toMatchObject({ status: 'SUCCESS', output: n });
    }
    // Nothing new started: the join's entry waits, parked, and no sum ran.
    await new Promise((r) => setTimeout(r, 300));
    expect(sums).toEqual([]);
    expect(await store.getActivity(job.id, 'join')).toBeUndefined();
    expect(await stateOf(job.id)).toBe('SUSPENDED');
    expect((await client.resume(job.id)).state).toBe('RUNNING');
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 60 });
    expect(g.started).toHaveLength(3);
    const kinds = (await client.history(job.id)).map((h) => h.kind);
    expect(kinds).toEqual(expect.arrayContaining(['suspend', 'suspended', 'resume']));
    expect(kinds.indexOf('suspend')).toBeLessThan(kinds.indexOf('suspended'));
    expect(await store.countMessages()).toBe(0);
  });

  it('graph: task messages no worker has claimed yet are kept while suspended, not run', async () => {
    const g = gate();
    worker = new Worker({
      store,
      idleMs: 100,
      concurrency: 1,
      handlers: { slow: g.slow, sum: async (input) => input },
    });
    await worker.start();
    const job = await client.start('fan', {});
    await waitFor(() => g.started.length === 1, 'one handler running');
    expect((await client.pause(job.id)).state).toBe('SUSPENDING');
    g.open();
    await waitFor(async () => (await stateOf(job.id)) === 'SUSPENDED', 'SUSPENDED');
    await new Promise((r) => setTimeout(r, 300));
    expect(g.started).toHaveLength(1);
    expect(await store.countMessages()).toBe(2); // the two waiting tasks, parked
    await client.resume(job.id);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 60 });
    expect(g.started.sort()).toEqual(['slow 1', 'slow 2', 'slow 3']);
  });

  it('graph: a job paused with no handler running is SUSPENDED at once', async () => {
    const job = await client.start('fan', {});
    expect((await client.pause(job.id)).state).toBe('SUSPENDED');
    expect((await client.pause(job.id)).state).toBe('SUSPENDED');
    expect((await client.status(job.id)).waitingFor).toEqual([
      'suspended: starts nothing until `weft resume`',
    ]);
    const g = gate();
    g.open();
    worker = new Worker({
      store,
      idleMs: 100,
      handlers: { slow: g.slow, sum: async (input) => input },
    });
    await worker.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(g.started).toEqual([]);
    await client.resume(job.id);
    expect(await client.result(job.id, { wait: true, timeoutMs: 30_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 60,
    });
  });

  it('graph: a signal that comes while suspended is recorded; what it would start waits', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: gated
activities:
  start:   { kind: trigger }
  approve: { kind: hook, signal: approve }
  after:   { kind: task, task: after, input: "approve.output" }
transitions: { start: [approve], approve: [after] }
output: after.output
`),
    );
    const ran: unknown[] = [];
    worker = new Worker({
      store,
      idleMs: 100,
      handlers: {
        after: async (input) => {
          ran.push(input);
          return input;
        },
      },
    });
    await worker.start();
    const job = await client.start('gated', {});
    await waitFor(async () => (await store.getActivity(job.id, 'approve'))?.status === 'RUNNING');
    expect((await client.pause(job.id)).state).toBe('SUSPENDED');
    await client.signal(job.id, 'approve', { by: 'ana' });
    await waitFor(
      async () => (await store.getActivity(job.id, 'approve'))?.status === 'SUCCESS',
      'the signal recorded',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual([]);
    expect(await stateOf(job.id)).toBe('SUSPENDED');
    await client.resume(job.id);
    expect(await client.result(job.id, { wait: true, timeoutMs: 30_000 })).toMatchObject({
      state: 'SUCCESS',
      output: { by: 'ana' },
    });
    expect(ran).toEqual([{ by: 'ana' }]);
  });

  it('graph: a handler whose worker died while suspending: its task is taken over, parked, and the job settles', async () => {
    // A worker with no `slow` handler runs the engine only: the three tasks wait.
    worker = new Worker({ store, idleMs: 100, handlers: { sum: async (input) => input } });
    await worker.start();
    const job = await client.start('fan', {});
    await waitFor(async () => (await store.countMessages('task:slow')) === 3, 'three tasks');
    // A worker that will die holds one of them, for half a second.
    const [held] = await store.claim('task:slow', { consumer: 'ghost', leaseMs: 500 });
    expect((await client.pause(job.id)).state).toBe('SUSPENDING');
    await new Promise((r) => setTimeout(r, 600));
    await worker.stop();
    const g = gate();
    g.open();
    worker = new Worker({
      store,
      idleMs: 100,
      handlers: { slow: g.slow, sum: async (input) => input },
    });
    await worker.start();
    await waitFor(async () => (await stateOf(job.id)) === 'SUSPENDED', 'SUSPENDED');
    expect(g.started).toEqual([]);
    const taken = (await client.history(job.id)).filter((h) => h.kind === 'resumption');
    expect(taken).toHaveLength(1);
    expect(taken[0]?.change).toMatchObject({
      died: 'ghost',
      message: held?.id,
      state: 'SUSPENDING',
    });
    expect((await client.status(job.id)).resumptions).toBe(1);
    await client.resume(job.id);
    expect(await client.result(job.id, { wait: true, timeoutMs: 30_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 60,
    });
  });

  it('graph: a suspended job can be cancelled, and its parked work goes with it', async () => {
    const job = await client.start('fan', {});
    expect((await client.pause(job.id)).state).toBe('SUSPENDED');
    expect(await store.countMessages()).toBe(1); // the trigger's entry, parked
    expect((await client.cancel(job.id)).state).toBe('FAILURE');
    expect(await store.countMessages()).toBe(0);
    await expect(client.resume(job.id)).rejects.toThrow(/already ended/);
  });

  it('code-first: pause while three tasks run, SUSPENDING until they finish, then SUSPENDED, resume, SUCCESS', async () => {
    const g = gate();
    const slow = defineTask('slow', async (n: number) => g.slow({ n }));
    const triple = defineWorkflow(
      'triple',
      class extends Workflow {
        async handle() {
          const outs = await this.execute(
            [slow, 1] as const,
            [slow, 2] as const,
            [slow, 3] as const,
          );
          const more = await this.execute(slow, 4);
          return outs.reduce((x, y) => x + y, 0) + more;
        }
      },
    );
    worker = new Worker({
      store,
      idleMs: 100,
      concurrency: 10,
      workflows: [triple],
      tasks: [slow],
    });
    await worker.start();
    const job = await client.start('triple', []);
    await waitFor(() => g.started.length === 3, 'three tasks running');
    expect((await client.pause(job.id)).state).toBe('SUSPENDING');
    g.open();
    await waitFor(async () => (await stateOf(job.id)) === 'SUSPENDED', 'SUSPENDED');
    await new Promise((r) => setTimeout(r, 300));
    expect(g.started).toHaveLength(3);
    expect((await client.resume(job.id)).state).toBe('RUNNING');
    expect(await client.result(job.id, { wait: true, timeoutMs: 30_000 })).toMatchObject({
      state: 'SUCCESS',
      output: 100,
    });
    expect(g.started).toHaveLength(4);
  });
});
