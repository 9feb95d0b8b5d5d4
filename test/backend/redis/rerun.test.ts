/**
 * Redis only: a transaction's callback may run more than once (a conflict at commit runs
 * it again on a fresh overlay). A worker's transactions are made to conflict once each —
 * after the callback returns, another connection writes to a job it locked, so the
 * commit script finds the job's revision moved — and every job still ends once, with its
 * end logged once and every step reported to `onCommit` and the metrics as committed.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { openStore } from '../../../src/store/open-store.js';
import { overriding } from '../../../src/store/overriding.js';
import type { Store, StoreTx } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import {
  backend,
  freshStoreUrl,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

const redis = backend === 'redis' && !skipBackend;

let location: TestStoreLocation;
let store: Store;
let poker: Store;
let worker: Worker | undefined;
beforeEach(async () => {
  if (!redis) return;
  location = await freshStoreUrl();
  store = await openStore(location.url);
  poker = await openStore(location.url);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await Promise.all([store?.close(), poker?.close()]);
  await location?.cleanup();
});

/**
 * `store` whose transactions each conflict once: the first run of a callback that locked
 * a job ends with another connection adding to a counter of that job, which moves the
 * job's revision, so the commit refuses and the callback runs again. Returns how many
 * runs were forced again.
 */
function conflictingOnce(inner: Store): { store: Store; reruns: () => number } {
  let reruns = 0;
  const transaction: Store['transaction'] = (fn) => {
    let first = true;
    return inner.transaction(async (tx) => {
      const locked: string[] = [];
      const view = overriding(tx, {
        lockJob: (id: string) => {
          locked.push(id);
          return tx.lockJob(id);
        },
        lockJobs: (ids: string[]) => {
          locked.push(...ids);
          return tx.lockJobs(ids);
        },
      } as Partial<StoreTx>);
      const result = await fn(view);
      const [job] = locked;
      if (first && job !== undefined) {
        first = false;
        reruns++;
        await poker.addCounter({ job, field: 'poked' }, 1n);
      }
      return result;
    });
  };
  return { store: overriding(inner, { transaction }), reruns: () => reruns };
}

const add = defineTask('rerun-add', async (n: number) => n + 1);
const twice = defineWorkflow(
  'rerun-code',
  class extends Workflow {
    async handle(n: number) {
      const a = await this.execute(add, n);
      return await this.execute(add, a);
    }
  },
);

it.skipIf(!redis)(
  'a worker whose every transaction runs twice ends each job once and reports each end once',
  async () => {
    const client = new Client(store);
    await client.deploy(
      compileWorkflow(`
workflow: rerun-graph
activities:
  start: { kind: trigger }
  one:   { kind: task, task: inc, input: "start.input" }
  two:   { kind: task, task: inc, input: "one.output" }
transitions:
  start: [one]
  one: [two]
`),
    );
    const { store: flaky, reruns } = conflictingOnce(store);
    const ends: string[] = [];
    const committed: string[] = [];
    const logger = {
      info: (line: string) => {
        if (line.includes(' ended ')) ends.push(line.split(' ')[1] as string);
      },
      warn() {},
      error() {},
    };
    let calls = 0;
    worker = new Worker({
      store: flaky,
      idleMs: 50,
      logger,
      handlers: { inc: async (n) => (calls++, (n as number) + 1) },
      tasks: [add],
      workflows: [twice],
      onCommit: (jobs) => committed.push(...jobs),
    });
    await worker.start();
    const jobs = [
      ...(await Promise.all([1, 2, 3].map((n) => client.start('rerun-graph', n)))),
      ...(await Promise.all([10, 20].map((n) => client.start(twice, n)))),
    ];
    const results = await Promise.all(
      jobs.map((j) => client.result(j.id, { wait: true, timeoutMs: 30_000 })),
    );
    expect(results.map((r) => r.state)).toEqual([
      'SUCCESS',
      'SUCCESS',
      'SUCCESS',
      'SUCCESS',
      'SUCCESS',
    ]);
    expect(results.slice(3).map((r) => r.output)).toEqual([12, 22]);
    await worker.stop();
    worker = undefined;
    expect(reruns()).toBeGreaterThan(0);
    // Each graph job's two tasks ran once each: a re-run never starts a task again.
    expect(calls).toBe(6);
    expect(ends.sort()).toEqual(jobs.map((j) => j.id).sort());
    for (const j of jobs) expect(committed).toContain(j.id);
  },
);
