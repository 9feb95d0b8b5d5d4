/**
 * `weft rerun <job> --from <step>` as a user meets it, in its own process: on a
 * code-first job that failed at its second task, it prints the new job and what it
 * kept; a worker then finishes the new job without running the first task again. An
 * unknown step and a job that still runs are refused with exit 1, naming what.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { runWeft, type WeftRun } from '../../support/weft-cli.js';

let location: TestStoreLocation;
let store: Store;
let worker: Worker | undefined;
beforeEach(async () => {
  location = await freshStoreUrl();
  store = await openStore(location.url);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await store.close();
  await location.cleanup();
});

function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

const quiet = { error() {}, warn() {}, info() {} };

describe.skipIf(skipBackend)('weft rerun of a code-first job', () => {
  it('starts a new job from the step; the tasks before it are not run again', async () => {
    const calls: string[] = [];
    let declined = true;
    const reserve = defineTask('reserve', async () => {
      calls.push('reserve');
      return 'held';
    });
    const charge = defineTask(
      'charge',
      async (hold: string) => {
        calls.push('charge');
        if (declined) throw new Error('card declined');
        return `${hold}+paid`;
      },
      { retry: { attempts: 1 } },
    );
    const ship = defineTask('ship', async (paid: string) => {
      calls.push('ship');
      return `${paid}+shipped`;
    });
    const order = defineWorkflow(
      'cli-order',
      class extends Workflow {
        async handle() {
          const hold = await this.execute(reserve);
          const paid = await this.execute(charge, hold);
          return this.execute(ship, paid);
        }
      },
    );
    worker = new Worker({
      store,
      idleMs: 20,
      logger: quiet,
      workflows: [order],
      tasks: [reserve, charge, ship],
    });
    await worker.start();
    const client = new Client(store);
    const job = await client.start('cli-order', []);
    const failed = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(failed.state).toBe('FAILURE');

    const unknown = await weft(['rerun', job.id, '--from', 'refund']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/error: step .*refund in job .*its steps: reserve, charge/);

    declined = false;
    const run = await weft(['rerun', job.id, '--from', 'charge']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const [head, kept, again] = run.out.split('\n');
    expect(head).toMatch(new RegExp(`^(\\S+) RUNNING \\(rerun of ${job.id} from charge\\)$`));
    expect(kept).toBe('kept: reserve');
    expect(again).toBe('runs again: charge');
    const newId = (head as string).split(' ')[0] as string;
    const done = await client.result(newId, { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'held+paid+shipped' });
    expect(calls).toEqual(['reserve', 'charge', 'charge', 'ship']);
    expect((await client.result(job.id)).state).toBe('FAILURE');

    const json = await weft(['rerun', newId, '--from', 'ship', '--id', 'again-1', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({
      job: 'again-1',
      rerunOf: newId,
      from: 'ship',
      kept: ['reserve', 'charge'],
      again: ['ship'],
    });
    await client.result('again-1', { wait: true, timeoutMs: 30_000 });
    expect(calls.slice(4)).toEqual(['ship']);
  });

  it('refuses a job that still runs', async () => {
    const gate = defineWorkflow(
      'cli-gate',
      class extends Workflow {
        async handle() {
          return this.waitForEvent('open');
        }
      },
    );
    worker = new Worker({ store, idleMs: 20, logger: quiet, workflows: [gate], tasks: [] });
    await worker.start();
    const job = await new Client(store).start('cli-gate', []);
    const run = await weft(['rerun', job.id, '--from', 'wait for open', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out).error).toMatchObject({ code: 'RERUN_REFUSED' });
    expect(JSON.parse(run.out).error.message).toMatch(/still RUNNING \(cancel it first\)/);
  });

  it('reruns a graph job from an activity, as before', async () => {
    const client = new Client(store);
    await client.deploy(
      compileWorkflow(`
workflow: cli-pipe
activities:
  go:    { kind: trigger }
  first: { kind: task }
  last:  { kind: task }
transitions:
  go: [first]
  first: [last]
output: "last.output"
`),
    );
    const calls: string[] = [];
    worker = new Worker({
      store,
      idleMs: 20,
      logger: quiet,
      handlers: {
        first: async () => {
          calls.push('first');
          return 1;
        },
        last: async () => {
          calls.push('last');
          return 2;
        },
      },
    });
    await worker.start();
    const job = await client.start('cli-pipe', {});
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    const run = await weft(['rerun', job.id, '--from', 'last', '--json']);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.out);
    expect(answer).toMatchObject({ rerunOf: job.id, from: 'last', again: ['last'] });
    expect(answer.kept).toContain('first');
    const done = await client.result(answer.job, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(calls).toEqual(['first', 'last', 'last']);
  });
});
