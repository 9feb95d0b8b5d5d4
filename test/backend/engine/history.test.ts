/**
 * A job's history as `Client.history` reads it, with a real Worker: a graph job leaves a
 * line for its start (by the client), for each step in commit order — inline steps too —
 * with the digits it moved and the key after it, naming the worker; a cancel and a
 * code-first job's start, decisions, task results and end leave theirs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { NotFoundError } from '../../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
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
  worker = new Worker({ store, idleMs: 100, consumer: 'worker-1', ...options });
  await worker.start();
  return worker;
}

const FLAKY = `
workflow: flaky
activities:
  start: { kind: trigger }
  call:  { kind: task, retry: { attempts: 2, backoff: 10ms } }
  done:  { kind: task }
transitions:
  start: [call]
  call: [done]
`;

describe.skipIf(skipBackend)('job history', () => {
  it('lists a graph job’s start, every step in order with its digits, and its end', async () => {
    await client.deploy(compileWorkflow(FLAKY));
    let calls = 0;
    await startWorker({
      handlers: {
        call: async () => {
          calls++;
          if (calls === 1) throw new Error('flaky');
          return { ok: true };
        },
        done: async () => 'done',
      },
    });
    const job = await client.start('flaky', {});
    const ended = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(ended.state).toBe('SUCCESS');

    const history = await client.history(job.id);
    expect(history.map((e) => [e.seq, e.kind, e.activity])).toEqual([
      [1, 'start', null],
      [2, 'enter', 'start'],
      [3, 'enter', 'call'],
      [4, 'attempt', 'call'],
      [5, 'task', 'call'],
      [6, 'attempt', 'call'],
      [7, 'task', 'call'],
      [8, 'enter', 'done'],
      [9, 'attempt', 'done'],
      [10, 'task', 'done'],
      [11, 'end', null],
    ]);
    const [start, , enterCall, first, retry, second, success, , , last, end] = history;
    expect(start).toMatchObject({ worker: null, change: { state: 'RUNNING', workflow: 'flaky' } });
    expect(start?.change.collation).toMatch(/^999/);
    expect(enterCall?.change).toMatchObject({
      digits: { call: [9, 8] },
      status: 'RUNNING',
      attempt: 1,
    });
    // The failed first attempt: the activity stays started, its next attempt scheduled.
    expect(retry?.change).toMatchObject({
      digits: {},
      attempt: 2,
      error: 'Error: flaky',
      retryInMs: 10,
    });
    // Each attempt's start, when the worker claimed it: the second no earlier than its backoff.
    expect(first?.change).toEqual({ name: 'call', status: 'started', attempt: 1 });
    expect(second?.change).toEqual({ name: 'call', status: 'started', attempt: 2 });
    expect(Date.parse(second?.at ?? '') - Date.parse(first?.at ?? '')).toBeGreaterThanOrEqual(10);
    expect(success?.change).toMatchObject({ digits: { call: [8, 6] }, status: 'SUCCESS' });
    // The last step's key is the job's final key; the end line says how it ended.
    const view = await client.status(job.id);
    expect(last?.change.collation).toBe(view.collation);
    expect(end?.change).toEqual({ state: 'SUCCESS' });
    for (const e of history.slice(1)) expect(e.worker).toBe('worker-1');
    for (const e of history) expect(Date.parse(e.at)).toBeGreaterThan(0);
    // Paging: after a seq, at most a limit.
    expect((await client.history(job.id, { afterSeq: 6, limit: 1 })).map((e) => e.seq)).toEqual([
      7,
    ]);
  });

  it('ends a cancelled job’s history with the cancel, by the client', async () => {
    await client.deploy(
      compileWorkflow(`
workflow: waits
activities:
  start: { kind: trigger }
  fed:   { kind: hook }
transitions:
  start: [fed]
`),
    );
    await startWorker({});
    const job = await client.start('waits', {});
    await waitFor(async () => (await client.history(job.id)).some((e) => e.activity === 'fed'));
    await client.cancel(job.id);
    const last = (await client.history(job.id)).at(-1);
    expect(last).toMatchObject({
      kind: 'cancel',
      worker: null,
      change: { state: 'FAILURE', error: `Cancelled: job ${job.id} was cancelled` },
    });
  });

  it('lists a code-first job’s start, decisions with the works they added, results and end', async () => {
    const reserve = defineTask('reserve', async (sku: string) => ({ sku }));
    const order = defineWorkflow(
      'order',
      class extends Workflow {
        async handle(sku: string) {
          return this.execute(reserve, sku);
        }
      },
    );
    await startWorker({ workflows: [order], tasks: [reserve] });
    const job = await client.start(order, 'a-1');
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    const history = await client.history(job.id);
    expect(history.map((e) => e.seq)).toEqual(history.map((_, i) => i + 1));
    expect(history[0]).toMatchObject({ kind: 'start', worker: null });
    const decision = history.find((e) => e.kind === 'decision' && e.change.added?.length);
    expect(decision?.change.added).toEqual([
      expect.objectContaining({ type: 'task', name: 'reserve' }),
    ]);
    const work = (decision?.change.added?.[0] as { work?: string } | undefined)?.work;
    expect(
      history.filter((e) => e.kind === 'task').map((e) => [e.activity, e.change.status]),
    ).toEqual([
      [work, 'started'],
      [work, 'completed'],
    ]);
    expect(history.filter((e) => e.kind === 'attempt')).toMatchObject([
      { activity: work, worker: 'worker-1', change: { name: 'reserve', attempt: 1 } },
    ]);
    expect(history.at(-1)).toMatchObject({
      kind: 'end',
      worker: 'worker-1',
      change: { state: 'SUCCESS' },
    });
  });

  it('refuses a job that does not exist', async () => {
    await expect(client.history('nope')).rejects.toBeInstanceOf(NotFoundError);
  });
});
