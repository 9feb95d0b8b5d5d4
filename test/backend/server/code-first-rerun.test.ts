/**
 * `POST /api/jobs/:id/rerun` on a code-first job, as the dashboard sends it: `{ from }`
 * names a step of its timeline; the answer names the new job and what it kept; the new
 * job runs the step and what follows while the steps before it are not run again. An
 * unknown step is a 404, a job still running a 409, a missing `from` a 400.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { createHttpApi } from '../../../src/server/http-api/api.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

const quiet = { error() {}, warn() {}, info() {} };

describe.skipIf(skipBackend)('POST /api/jobs/:id/rerun of a code-first job', () => {
  let store: Store;
  let close: () => Promise<void>;
  let worker: Worker;
  beforeEach(async () => {
    ({ store, close } = await openTestStore());
  });
  afterEach(async () => {
    await worker?.stop();
    await close();
  });

  it('starts a new job from the step', async () => {
    const calls: string[] = [];
    let fail = true;
    const fetchIt = defineTask('fetch', async () => {
      calls.push('fetch');
      return 2;
    });
    const double = defineTask(
      'double',
      async (n: number) => {
        calls.push('double');
        if (fail) throw new Error('overflow');
        return n * 2;
      },
      { retry: { attempts: 1 } },
    );
    const report = defineTask('report', async (n: number) => {
      calls.push('report');
      return `got ${n}`;
    });
    const flow = defineWorkflow(
      'api-rerun',
      class extends Workflow {
        async handle() {
          const n = await this.execute(fetchIt);
          const d = await this.execute(double, n);
          return this.execute(report, d);
        }
      },
    );
    worker = new Worker({
      store,
      idleMs: 20,
      logger: quiet,
      workflows: [flow, gate],
      tasks: [fetchIt, double, report],
    });
    await worker.start();
    const client = new Client(store);
    const api = createHttpApi({ store, client, pollMs: 50 });
    const post = async (path: string, body: unknown) => {
      const response = await api.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const job = await client.start('api-rerun', []);
    expect((await client.result(job.id, { wait: true, timeoutMs: 30_000 })).state).toBe('FAILURE');

    expect((await post(`/api/jobs/${job.id}/rerun`, {})).status).toBe(400);
    const unknown = await post(`/api/jobs/${job.id}/rerun`, { from: 'double#2' });
    expect(unknown.status).toBe(404);

    fail = false;
    const rerun = await post(`/api/jobs/${job.id}/rerun`, { from: 'double' });
    expect(rerun).toMatchObject({
      status: 200,
      body: { rerunOf: job.id, from: 'double', kept: ['fetch'], again: ['double'] },
    });
    const done = await client.result(String(rerun.body.job), { wait: true, timeoutMs: 30_000 });
    expect(done).toMatchObject({ state: 'SUCCESS', output: 'got 4' });
    expect(calls).toEqual(['fetch', 'double', 'double', 'report']);
    // The new job's page shows the kept step, as recorded, then the rest.
    const detail = await api.request(`/api/jobs/${done.id}`);
    type Step = { name: string; keptFrom?: string; startedAt: string | null };
    const steps = ((await detail.json()) as { timeline: { steps: Step[] } }).timeline.steps;
    expect(steps.map((s) => [s.name, s.keptFrom ?? null])).toEqual([
      ['fetch', job.id],
      ['double', null],
      ['report', null],
    ]);
    expect(steps[0]?.startedAt).toBeNull();

    const open = await client.start('api-gate', []);
    const refused = await post(`/api/jobs/${open.id}/rerun`, { from: 'wait for go' });
    expect(refused.status).toBe(409);
  });
});

const gate = defineWorkflow(
  'api-gate',
  class extends Workflow {
    async handle() {
      return this.waitForEvent('go');
    }
  },
);
