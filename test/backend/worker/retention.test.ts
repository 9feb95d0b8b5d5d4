/**
 * Retention in a running worker: finished jobs go once their workflow's retention (a
 * file's `retention:`, a code-first definition's option) or else the worker's default
 * has passed — a code-first parent with its child, every row with them — and a job kept
 * by `forever`, or one that has not ended, stays.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { ValidationError } from '../../../src/core/errors.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

const graph = (name: string, retention?: string) =>
  compileWorkflow(`
workflow: ${name}
${retention ? `retention: ${retention}` : ''}
activities:
  start: { kind: trigger }
  work:  { kind: task, input: "input", retry: { attempts: 1 } }
transitions:
  start: [work]
output: "work.output"
`);

const echo = defineTask('echo', async (n: number) => n);
const child = defineWorkflow(
  'cf-child',
  class extends Workflow {
    async handle(n: number) {
      return await this.execute(echo, n);
    }
  },
);
const parent = defineWorkflow(
  'cf-parent',
  {
    async handle(n: number) {
      if (n < 0) throw new Error('negative');
      return await this.execute(child, n);
    },
  },
  { retention: { failed: 'forever' } },
);

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => close());

const exists = async (id: string) => (await store.getJob(id)) !== undefined;

describe('a worker with retention', () => {
  it('prunes by the workflow retention, else its default, and keeps what forever keeps', async () => {
    const kept = await client.deploy(graph('kept', 'forever'));
    expect(kept.retention).toEqual({ SUCCESS: null, FAILURE: null, REVERTED: null });
    await client.deploy(graph('short'));
    const worker = new Worker({
      store,
      retention: '1s',
      logger: { error() {}, info() {} },
      handlers: { work: async (input) => input },
      workflows: [parent, child],
      tasks: [echo],
    });
    await worker.start();
    try {
      // The code-first definition's retention is stored when the worker starts.
      expect(await store.listRetentions()).toMatchObject([
        { workflow: 'cf-parent', policy: { FAILURE: null }, source: 'code' },
        { workflow: 'kept', source: 'file' },
      ]);
      const keptJob = await client.start('kept', 1);
      await client.result(keptJob.id, { wait: true, timeoutMs: 30_000 });
      const failed = await client.start('cf-parent', [-1]);
      expect((await client.result(failed.id, { wait: true, timeoutMs: 30_000 })).state).toBe(
        'FAILURE',
      );
      const shortJob = await client.start('short', 2);
      const cf = await client.start('cf-parent', [3]);
      for (const job of [shortJob, cf]) {
        expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe(
          'SUCCESS',
        );
      }
      const [childJob] = await store.listJobs({ parentId: cf.id });
      expect(childJob?.state).toBe('SUCCESS');

      await waitFor(async () => !(await exists(shortJob.id)) && !(await exists(cf.id)), 'prune', {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      // The child went with its parent, and nothing of either is left.
      expect(await exists(childJob?.id as string)).toBe(false);
      for (const id of [shortJob.id, cf.id, childJob?.id as string]) {
        expect(await store.historyOfJob(id)).toEqual([]);
        expect(await store.listActivities(id)).toEqual([]);
        expect(await store.readJournal(id)).toEqual([]);
        expect((await store.listCounters(id)).size).toBe(0);
      }
      // Ended before them, and kept: forever, by the file and by the definition.
      expect(await exists(keptJob.id)).toBe(true);
      expect(await exists(failed.id)).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it('never prunes a job that has not ended', async () => {
    const waits = defineWorkflow('waits', {
      async handle() {
        return await this.waitForEvent('go');
      },
    });
    const worker = new Worker({ store, retention: '1ms', workflows: [waits] });
    await worker.start();
    try {
      const job = await client.start('waits', []);
      await waitFor(async () => (await store.getJob(job.id))?.state === 'RUNNING', 'running');
      // Several sweeps later (each 250 ms apart at this retention) it is still there.
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await store.getJob(job.id))?.state).toBe('RUNNING');
    } finally {
      await worker.stop();
    }
  });

  it('refuses a retention that is not one, naming where', () => {
    expect(() => new Worker({ store, retention: '0s' as never })).toThrow(ValidationError);
    expect(() => new Worker({ store, retention: { done: '1d' } as never })).toThrow(
      /worker retention\.done/,
    );
    expect(() =>
      defineWorkflow('w', { async handle() {} }, { retention: 'soon' as never }),
    ).toThrow(/w: retention/);
  });
});
