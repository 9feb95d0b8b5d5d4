/**
 * docs/workflows.md, "Choosing `join: all` or `join: any`": the page's `dispatch`
 * workflow, taken from the page, behaves as the page says. `notify` (`join: any`) runs
 * once, at the first arrival, seeing only what has ended; `ship` (`join: all`) waits for
 * both and sees both outputs; and `join: all` is a conditional merge, not a strict
 * "both": when one path fails with nothing to handle it, the step runs with the other
 * alone and the job still ends in FAILURE.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, compileWorkflow, type Json, Worker } from 'weft-engine';
import type { Store } from '../../../src/store/store.js';
import { singleAttempt } from '../../support/single-attempt.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const page = readFileSync(join(ROOT, 'docs/workflows.md'), 'utf8');

/** The first YAML block of the page's section on choosing a join. */
function dispatchYaml(): string {
  const section = page.slice(page.indexOf('### Choosing `join: all` or `join: any`'));
  const yaml = /^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!yaml) throw new Error('docs/workflows.md: no YAML block under "Choosing join"');
  return yaml;
}

let store: Store;
let close: () => Promise<void>;
let worker: Worker | undefined;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await close();
});

/** Starts a worker whose handlers record each call's input by task name. */
async function serve(pack: (input: Json) => Json): Promise<Record<string, Json[]>> {
  const calls: Record<string, Json[]> = { pack: [], ship: [], notify: [] };
  const record =
    (name: string, result: (input: Json) => Json) =>
    async (input: Json): Promise<Json> => {
      calls[name]?.push(input);
      return result(input);
    };
  worker = new Worker({
    store,
    handlers: {
      pack: record('pack', pack),
      ship: record('ship', () => 'shipped'),
      notify: record('notify', () => 'told'),
    },
  });
  await worker.start();
  return calls;
}

const stateOf = async (client: Client, jobId: string, activity: string) =>
  (await client.status(jobId)).activities.find((a) => a.id === activity)?.state;

describe('docs/workflows.md: choosing join: all or join: any', () => {
  it('the page declares notify join: any and leaves ship on the default (all)', () => {
    const wf = compileWorkflow(dispatchYaml());
    expect(wf.workflow).toBe('dispatch');
    expect(wf.activities.notify?.join).toBe('any');
    expect(wf.activities.ship?.join).toBe('all');
  });

  it('notify runs once at the first arrival; ship waits for both and sees both outputs', async () => {
    const client = new Client(store);
    await client.deploy(compileWorkflow(dispatchYaml()));
    const calls = await serve(() => ({ box: 'B-1' }));
    const job = await client.start('dispatch', { order: 'A-1' });

    await waitFor(async () => (await stateOf(client, job.id, 'notify')) === 'Completed', 'notify');
    // Packed, not paid: notify ran on the packing alone; ship waits for the payment.
    expect(calls.notify).toEqual([{ packed: { box: 'B-1' }, paid: null }]);
    expect(await stateOf(client, job.id, 'ship')).toBe('Pending');
    expect(calls.ship).toEqual([]);
    expect((await client.status(job.id)).state).toBe('RUNNING');

    await client.signal(job.id, 'paid', { ref: 'P-9' });
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toBe('shipped');
    expect(calls.ship).toEqual([{ parcel: { box: 'B-1' }, payment: { ref: 'P-9' } }]);
    // The payment's arrival did not run notify again.
    expect(calls.notify).toHaveLength(1);
  });

  it('join: all runs the step with the path that fired when the other failed unhandled; the job fails', async () => {
    const client = new Client(store);
    await client.deploy(singleAttempt(compileWorkflow(dispatchYaml())));
    const calls = await serve(() => {
      throw new Error('out of boxes');
    });
    const job = await client.start('dispatch', { order: 'A-1' });
    await waitFor(async () => (await stateOf(client, job.id, 'pack')) === 'Errored', 'pack');
    expect(calls.notify).toEqual([]);

    await client.signal(job.id, 'paid', { ref: 'P-9' });
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('FAILURE');
    expect(calls.ship).toEqual([{ parcel: null, payment: { ref: 'P-9' } }]);
    expect(calls.notify).toEqual([{ packed: null, paid: { ref: 'P-9' } }]);
  });
});
