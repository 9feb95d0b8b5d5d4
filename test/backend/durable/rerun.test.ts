/**
 * Rerunning a code-first job from a step, through the real Worker: a new job of the same
 * workflow and input whose journal keeps the old job's results before the step (their
 * handlers are not called again, their outputs feed what follows), runs the step and
 * what follows, and ends on its own; the old job is unchanged but for a `rerun` line in
 * its history. An unknown step, a job still running and a step of a handler are refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { NotFoundError, ValidationError } from '../../../src/core/errors.js';
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
const quiet = { error() {}, warn() {}, info() {} };

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

function order() {
  const calls: string[] = [];
  const state = { chargeFails: true };
  const reserve = defineTask('reserve', async (input: { sku: string }) => {
    calls.push('reserve');
    return { hold: `H-${input.sku}` };
  });
  const charge = defineTask(
    'charge',
    async (input: { hold: string }) => {
      calls.push('charge');
      if (state.chargeFails) throw new Error('card declined');
      return { paid: input.hold };
    },
    { retry: { attempts: 1 } },
  );
  const ship = defineTask('ship', async (input: { paid: string }) => {
    calls.push('ship');
    return `shipped ${input.paid}`;
  });
  const workflow = defineWorkflow(
    'order-rerun',
    class extends Workflow {
      async handle(sku: string) {
        const r = (await this.execute(reserve, { sku })) as { hold: string };
        const c = (await this.execute(charge, { hold: r.hold })) as { paid: string };
        return this.execute(ship, { paid: c.paid });
      }
    },
  );
  return { calls, state, workflow, tasks: [reserve, charge, ship] };
}

async function failedOrder(o: ReturnType<typeof order>) {
  worker = new Worker({
    store,
    idleMs: 20,
    logger: quiet,
    workflows: [o.workflow],
    tasks: o.tasks,
  });
  await worker.start();
  const job = await client.start(o.workflow.name, ['A1']);
  return client.result(job.id, { wait: true, timeoutMs: 30_000 });
}

describe('Client.rerun of a code-first job', () => {
  it('keeps the results before the step and runs the step and what follows', async () => {
    const o = order();
    const failed = await failedOrder(o);
    expect(failed.state).toBe('FAILURE');
    expect(o.calls).toEqual(['reserve', 'charge']);
    const before = await readInstance(store, failed.id);
    const historyBefore = await client.history(failed.id);

    o.state.chargeFails = false;
    const rerun = await client.rerun(failed.id, { from: 'charge' });
    expect(rerun.job.id).not.toBe(failed.id);
    expect(rerun.job).toMatchObject({ workflow: 'order-rerun', model: 'durable' });
    expect(rerun.kept).toEqual(['reserve']);
    expect(rerun.again).toEqual(['charge']);
    const done = await client.result(rerun.job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toBe('shipped H-A1');
    expect(done.input).toEqual(['A1']);
    // reserve's handler ran once, for the old job; charge again, then ship.
    expect(o.calls).toEqual(['reserve', 'charge', 'charge', 'ship']);

    const instance = (await readInstance(store, done.id)) as Instance;
    expect(instance.statuses.map((s) => [s.name, s.status])).toEqual([
      ['reserve', 'completed'],
      ['charge', 'completed'],
      ['ship', 'completed'],
    ]);
    expect(instance.statuses[0]?.output).toEqual({ hold: 'H-A1' });
    expect(instance.statuses.map((s) => s.kept_from ?? null)).toEqual([failed.id, null, null]);
    expect(instance.statuses.every((s) => s.uuid.startsWith(`${done.id}.`))).toBe(true);

    // The old job: same state, same instance; its history says it was rerun.
    const old = await client.result(failed.id);
    expect(old).toMatchObject({ state: 'FAILURE', error: failed.error });
    expect(await readInstance(store, failed.id)).toEqual(before);
    const historyAfter = await client.history(failed.id);
    expect(historyAfter.slice(0, historyBefore.length)).toEqual(historyBefore);
    expect(historyAfter.at(-1)).toMatchObject({ kind: 'rerun', change: { rerun: done.id } });
    const start = (await client.history(done.id))[0];
    expect(start).toMatchObject({
      kind: 'start',
      change: { rerunOf: failed.id, from: 'charge' },
    });
  });

  it('names a step by occurrence or work id, and a rerun can be rerun', async () => {
    const o = order();
    o.state.chargeFails = false;
    const first = await failedOrder(o);
    expect(first.state).toBe('SUCCESS');
    const instance = (await readInstance(store, first.id)) as Instance;
    const shipId = instance.statuses[2]?.uuid as string;
    const byId = await client.rerun(first.id, { from: shipId });
    expect(byId.kept).toEqual(['reserve', 'charge']);
    const done = await client.result(byId.job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(o.calls).toEqual(['reserve', 'charge', 'ship', 'ship']);
    const again = await client.rerun(done.id, 'reserve#1', { id: 'custom-rerun' });
    expect(again.job.id).toBe('custom-rerun');
    expect(again.kept).toEqual([]);
    await client.result('custom-rerun', { wait: true, timeoutMs: 30_000 });
    expect(o.calls.slice(4)).toEqual(['reserve', 'charge', 'ship']);
  });

  it('refuses an unknown step and a job that still runs, writing nothing', async () => {
    const o = order();
    const failed = await failedOrder(o);
    const err = await client.rerun(failed.id, { from: 'charge#2' }).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toMatch(/charge#2 in job .*reserve, charge/);
    await expect(client.rerun('no-such-job', { from: 'charge' })).rejects.toBeInstanceOf(
      NotFoundError,
    );

    const gate = defineWorkflow(
      'gate-rerun',
      class extends Workflow {
        async handle() {
          await this.waitForEvent('open');
          return 'opened';
        }
      },
    );
    await worker?.stop();
    worker = new Worker({ store, idleMs: 20, logger: quiet, workflows: [gate], tasks: [] });
    await worker.start();
    const running = await client.start('gate-rerun', []);
    const refused = await client.rerun(running.id, { from: 'wait for open' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.code).toBe('RERUN_REFUSED');
    expect(refused.message).toMatch(/still RUNNING/);
    const page = await store.listJobs({ limit: 100 });
    expect(page.map((j: { id: string }) => j.id).sort()).toEqual([failed.id, running.id].sort());
  });

  it('keeps a child workflow and dispatched work before the cut as recorded; runs them again after it', async () => {
    const calls: string[] = [];
    let last = 'fail';
    const leaf = defineTask('leaf', async (n: number) => {
      calls.push(`leaf ${n}`);
      return n + 1;
    });
    const notify = defineTask('notify', async () => {
      calls.push('notify');
      return 'ok';
    });
    const finish = defineTask(
      'finish',
      async (n: number) => {
        calls.push('finish');
        if (last === 'fail') throw new Error('not yet');
        return n;
      },
      { retry: { attempts: 1 } },
    );
    const child = defineWorkflow(
      'rerun-child',
      class extends Workflow {
        async handle(n: number) {
          return this.execute(leaf, n);
        }
      },
    );
    const parent = defineWorkflow(
      'rerun-parent',
      class extends Workflow {
        async handle() {
          const a = (await this.execute(child, 1)) as number;
          await this.dispatch(notify);
          const b = (await this.execute(child, a)) as number;
          return this.execute(finish, b);
        }
      },
    );
    worker = new Worker({
      store,
      idleMs: 20,
      logger: quiet,
      workflows: [parent, child],
      tasks: [leaf, notify, finish],
    });
    await worker.start();
    const job = await client.start('rerun-parent', []);
    const failed = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(failed.state).toBe('FAILURE');
    expect(calls.filter((c) => c !== 'notify')).toEqual(['leaf 1', 'leaf 2', 'finish']);
    // notify is dispatched: the job does not wait for it, it may end after the job.
    await waitFor(
      async () => (await readInstance(store, job.id))?.statuses[1]?.status === 'completed',
      'the dispatched notify to complete',
    );
    const old = (await readInstance(store, job.id)) as Instance;
    const firstChild = old.statuses[0]?.uuid as string;

    // From the second child: the first child and the dispatched notify are kept.
    last = 'ok';
    calls.length = 0;
    const rerun = await client.rerun(job.id, { from: 'rerun-child#2' });
    expect(rerun.kept).toEqual(['rerun-child', 'notify']);
    expect(rerun.again).toEqual(['rerun-child#2', 'finish']);
    const done = await client.result(rerun.job.id, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 3 });
    expect(calls).toEqual(['leaf 2', 'finish']);
    const instance = (await readInstance(store, done.id)) as Instance;
    // The kept child still names the old child job; the new one is a child of the rerun.
    expect(instance.statuses[0]?.uuid).toBe(firstChild);
    const second = instance.statuses[2]?.uuid as string;
    expect(second.startsWith(`${done.id}.`)).toBe(true);
    expect((await store.getJob(second))?.parentId).toBe(done.id);
  });

  it('refuses a step that ran in a handler, not in the main code', async () => {
    const side = defineTask('side', async () => 'side');
    const flow = defineWorkflow(
      'rerun-handler',
      class extends Workflow {
        async handle() {
          await this.waitForEvent('go');
          return 'done';
        }
        async onEvent(name: string) {
          if (name === 'note') await this.execute(side);
        }
      },
    );
    worker = new Worker({ store, idleMs: 20, logger: quiet, workflows: [flow], tasks: [side] });
    await worker.start();
    const job = await client.start('rerun-handler', []);
    await client.sendEvent(job.id, 'note', null);
    await client.sendEvent(job.id, 'go', null);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    const err = await client.rerun(job.id, { from: 'side' }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/side: it ran in a handler/);
  });
});
