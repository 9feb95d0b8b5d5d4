/**
 * A code-first instance's `properties(0)` are its workflow's initial properties (class
 * fields, or `properties: {…}`) however it is started: by a client that does not have
 * the code, by name before any worker has registered the workflow (the job waits for a
 * worker that has it), or as a child started by a worker that lacks the child's code.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { NotFoundError } from '../../../src/core/errors.js';
import {
  defineTask,
  defineWorkflow,
  Workflow,
  type WorkflowDefinition,
} from '../../../src/durable/index.js';
import { type Instance, propertiesAt } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
let client: Client;
const workers: Worker[] = [];

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await close();
});

async function startWorker(options: Partial<ConstructorParameters<typeof Worker>[0]>) {
  const worker = new Worker({ store, idleMs: 200, ...options });
  await worker.start();
  workers.push(worker);
  return worker;
}

const double = defineTask('double', (n: number) => n * 2);

/** Class fields, read in handle() before and after a task (a second decision). */
const counter = defineWorkflow(
  'counter',
  class extends Workflow {
    count = 3;
    label = 'start';
    tags: string[] = ['a'];

    async handle(step: number) {
      const seen = { count: this.count, label: this.label, tags: [...this.tags] };
      this.count += step;
      const doubled = await this.execute(double, this.count);
      return { seen, doubled, label: this.label, tags: this.tags };
    }
  },
);

/** `properties: {…}` on an object workflow. */
const greeter = defineWorkflow('greeter', {
  properties: { greeting: 'hello', times: 2 },
  async handle(name: string) {
    return `${this.greeting} ${name} x${this.times}`;
  },
});

const instanceOf = async (id: string) => (await readInstance(store, id)) as Instance;

const counterOutput = {
  seen: { count: 3, label: 'start', tags: ['a'] },
  doubled: 8,
  label: 'start',
  tags: ['a'],
};

describe('code-first initial properties', () => {
  it('are properties(0) when a client without the code starts the instance', async () => {
    await startWorker({ workflows: [counter, greeter], tasks: [double] });
    const a = await client.start('counter', [1]);
    const b = await client.start('greeter', ['ana']);
    const doneA = await client.result(a.id, { wait: true, timeoutMs: 30_000 });
    const doneB = await client.result(b.id, { wait: true, timeoutMs: 30_000 });
    expect(doneA.state).toBe('SUCCESS');
    expect(doneA.output).toEqual(counterOutput);
    expect(doneB.output).toBe('hello ana x2');
    const instance = await instanceOf(a.id);
    expect(propertiesAt(instance.properties, 0)).toEqual({ count: 3, label: 'start', tags: ['a'] });
    expect((await instanceOf(b.id)).properties[0]?.values).toEqual({ greeting: 'hello', times: 2 });
  });

  it('a job started by name before any worker registered the workflow waits for one', async () => {
    const job = await client.start('counter', [1], { id: 'early' });
    expect(job).toMatchObject({ id: 'early', model: 'durable', state: 'RUNNING' });
    // Starting the same id again returns the waiting job.
    expect((await client.start('counter', [1], { id: 'early' })).state).toBe('RUNNING');
    // A worker without the code leaves it alone.
    await startWorker({ workflows: [greeter] });
    const greeted = await client.start('greeter', ['bo']);
    expect((await client.result(greeted.id, { wait: true, timeoutMs: 30_000 })).state).toBe(
      'SUCCESS',
    );
    expect((await store.getJob('early'))?.state).toBe('RUNNING');
    // The worker that has the code finishes it, with the initial properties.
    await startWorker({ workflows: [counter], tasks: [double] });
    const done = await client.result('early', { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toEqual(counterOutput);
  });

  it('a child started by a worker without its code gets its initial properties', async () => {
    const parent = defineWorkflow(
      'parent',
      class extends Workflow {
        async handle() {
          return this.execute(greeter as unknown as WorkflowDefinition<[string], string>, 'kid');
        }
      },
    );
    await startWorker({ workflows: [parent] });
    await startWorker({ workflows: [greeter] });
    const job = await client.start('parent', []);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toBe('hello kid x2');
  });

  it('a version of a workflow nobody knows is still not found; a waiting job can be cancelled', async () => {
    await expect(client.start('nobody', [], { version: 2 })).rejects.toBeInstanceOf(NotFoundError);
    const waiting = await client.start('nobody', []);
    expect(waiting.state).toBe('RUNNING');
    expect((await client.cancel(waiting.id)).state).toBe('FAILURE');
  });
});
