/**
 * Code-first compensation through the real Worker: a workflow defined with
 * `{ onFailure: 'revert' }` whose `handle()` throws — a task failure it does not catch
 * included — reverts every finished task that names a revert task, newest first, with
 * `{ input, output, error }` of its run, and ends REVERTED; a revert that fails ends it
 * FAILURE naming the task. Without the option nothing is reverted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import type { Json } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';

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

function saga(onFailure: 'revert' | 'fail', options: { failRefund?: boolean } = {}) {
  const log: string[] = [];
  const got: Json[] = [];
  const undo = (name: string, fail = false) =>
    defineTask(name, async (input: Json) => {
      log.push(name);
      got.push(input);
      if (fail) throw new Error(`${name} broke`);
      return `${name}d`;
    });
  const release = undo('release');
  const refund = undo('refund', options.failRefund);
  const unship = undo('unship');
  const reserve = defineTask(
    'reserve',
    async (input: { sku: string }) => {
      log.push('reserve');
      return { hold: `H-${input.sku}` };
    },
    { revert: release },
  );
  const charge = defineTask(
    'charge',
    async (input: { amount: number }) => {
      log.push('charge');
      return { paid: input.amount };
    },
    { revert: refund },
  );
  const email = defineTask('email', async () => {
    log.push('email');
    return 'sent';
  });
  const ship = defineTask(
    'ship',
    async () => {
      log.push('ship');
      throw new Error('no courier');
    },
    { revert: unship, retry: { attempts: 1 } },
  );
  const workflow = defineWorkflow(
    `saga-${onFailure}${options.failRefund ? '-badrefund' : ''}`,
    class extends Workflow {
      async handle(sku: string) {
        await this.execute(reserve, { sku });
        await this.execute(charge, { amount: 5 });
        await this.execute(email);
        await this.execute(ship);
        return 'shipped';
      }
    },
    { onFailure },
  );
  return { log, got, workflow, tasks: [reserve, charge, email, ship] };
}

async function runToEnd(s: ReturnType<typeof saga>) {
  worker = new Worker({ store, idleMs: 20, workflows: [s.workflow], tasks: s.tasks });
  await worker.start();
  const job = await client.start(s.workflow.name, ['A1']);
  return client.result(job.id, { wait: true, timeoutMs: 30_000 });
}

describe('code-first revert', () => {
  it('reverts finished tasks newest first when handle() throws, and ends REVERTED', async () => {
    const s = saga('revert');
    const done = await runToEnd(s);
    expect(done.state).toBe('REVERTED');
    expect(s.log).toEqual(['reserve', 'charge', 'email', 'ship', 'unship', 'refund', 'release']);
    expect((s.got[0] as { error: { message: string } }).error.message).toBe('no courier');
    expect(s.got[1]).toEqual({ input: { amount: 5 }, output: { paid: 5 }, error: null });
    expect(s.got[2]).toEqual({ input: { sku: 'A1' }, output: { hold: 'H-A1' }, error: null });
    expect(done.error?.message).toMatch(/no courier/);
    const instance = (await readInstance(store, done.id)) as Instance;
    const states = Object.fromEntries(
      instance.statuses.map((st) => [st.name, st.revert_state ?? st.status]),
    );
    expect(states).toEqual({
      reserve: 'REVERTED',
      charge: 'REVERTED',
      email: 'completed',
      ship: 'REVERTED',
    });
    // Each revert has its own semaphore, closed once.
    const counters = await store.listCounters(done.id);
    const sems = [...counters.entries()].filter(([k]) => k.includes('revert-sem'));
    expect(sems).toHaveLength(3);
    for (const [, value] of sems) expect(value).toBe(888_000_001_000_001n);
    const history = await client.history(done.id);
    expect(history.filter((h) => h.kind === 'revert')).toHaveLength(3);
    expect(history.at(-1)).toMatchObject({ kind: 'end', change: { state: 'REVERTED' } });
  });

  it('a revert that fails ends the instance FAILURE naming the task', async () => {
    const s = saga('revert', { failRefund: true });
    const done = await runToEnd(s);
    expect(done.state).toBe('FAILURE');
    expect(s.log).toEqual(['reserve', 'charge', 'email', 'ship', 'unship', 'refund', 'release']);
    expect(done.error).toMatchObject({ code: 'REVERT_FAILURE', activity: 'charge' });
    expect(done.error?.message).toMatch(/revert of charge failed: refund broke/);
  });

  it('without onFailure: revert a failure reverts nothing', async () => {
    const s = saga('fail');
    const done = await runToEnd(s);
    expect(done.state).toBe('FAILURE');
    expect(s.log).toEqual(['reserve', 'charge', 'email', 'ship']);
  });
});
