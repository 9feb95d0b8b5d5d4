/**
 * `weft dead-letters` and `weft result --wait` as a user meets them, each command its
 * own process (`node bin/weft.js …`): a task message whose workers kept dying is
 * dead-lettered, the waiting `weft result --wait` returns FAILURE naming it, `weft
 * dead-letters` lists it with its last error, and `weft dead-letters requeue <id>`
 * reopens the job so the worker finishes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
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

/** Runs `node bin/weft.js …args` with WEFT_STORE set to the store under test. */
function weft(args: string[]): Promise<WeftRun> {
  return runWeft(args, { store: location.url });
}

const quiet = { error() {}, warn() {}, info() {} };

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]>) {
  worker = new Worker({ store, idleMs: 100, maxDeliveries: 2, logger: quiet, ...options });
  await worker.start();
}

describe.skipIf(skipBackend)('weft dead-letters', () => {
  it('lists a dead letter with its last error, and requeue lets its job finish', async () => {
    const client = new Client(store);
    await client.deploy(
      compileWorkflow(`
workflow: one-task
activities:
  start: { kind: trigger }
  work:  { kind: task }
transitions:
  start: [work]
`),
    );
    // A worker without the handler runs the engine; the task waits in its stream.
    await startWorker({});
    const job = await client.start('one-task', {});
    await waitFor(async () => (await store.countMessages('task:work')) === 1);
    await worker?.stop();
    // Two workers took the task and died with it; the second recorded why.
    await store.claim('task:work', { consumer: 'ghost', leaseMs: 1 });
    await new Promise((r) => setTimeout(r, 5));
    const [held] = await store.claim('task:work', { consumer: 'ghost', leaseMs: 1 });
    await store.release('task:work', held?.id as string, 'ghost', 0, {
      name: 'Error',
      message: 'out of memory',
    });

    // A user waits for the result while a worker with the handler takes the task a third time.
    const waiting = weft(['result', job.id, '--wait']);
    await startWorker({ handlers: { work: async () => ({ worked: true }) } });
    const failed = await waiting;
    expect(failed.code).toBe(1);
    expect(failed.out).toBe(
      `FAILURE: message ${held?.id} on task:work (activity work) was dead-lettered after 3 deliveries; last error: Error: out of memory`,
    );

    const listed = await weft(['dead-letters']);
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^ID\s+STREAM\s+JOB\s+DELIVERIES\s+DEAD AT\s+LAST ERROR$/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(`^${held?.id}\\s+task:work\\s+${job.id}\\s+3\\s+\\S+Z\\s+Error: out of memory$`),
    );
    const json = await weft(['dead-letters', 'list', '--stream', 'task:work', '--json']);
    expect(JSON.parse(json.out)).toMatchObject([
      { id: held?.id, job: job.id, lastError: { message: 'out of memory' } },
    ]);
    expect(JSON.parse((await weft(['dead-letters', '--stream', 'engine', '--json'])).out)).toEqual(
      [],
    );

    const requeued = await weft(['dead-letters', 'requeue', held?.id as string]);
    expect(requeued.err).toBe('');
    expect(requeued.code).toBe(0);
    expect(requeued.out).toMatch(
      new RegExp(
        `^requeued dead letter ${held?.id} as message \\d+ on task:work; job ${job.id} is RUNNING again$`,
      ),
    );
    const done = await weft(['result', job.id, '--wait', '--timeout', '30000']);
    expect(done).toMatchObject({ code: 0, out: '{"work":{"worked":true}}' });
    expect(await weft(['dead-letters'])).toMatchObject({ code: 0, out: 'no dead letters' });
  });

  it('requeue of an id that is no dead letter fails, saying so', async () => {
    const ran = await weft(['dead-letters', 'requeue', '999']);
    expect(ran.code).toBe(1);
    expect(ran.err).toBe('error: dead letter "999" not found');
  });
});
