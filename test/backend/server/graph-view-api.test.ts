/**
 * What `GET /api/jobs/:id` gives a graph job's page to read its numbers by (issue 22), on
 * the store under test: the legend of the digits and of the semaphore; a reverted
 * activity told from a skipped one though both sit on 3; the failed activity marked
 * (`unhandled`: its 7 ended the job; `handled`: an on: error transition took it); and
 * `POST /api/jobs/:id/resume` refused with a 409 naming the state unless the job is
 * SUSPENDED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { createHttpApi } from '../../../src/server/http-api/api.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read as JSON, field by field
type Body = any;

/** reserve succeeds and is reverted; wrap is a branch not taken; charge fails. */
const saga = compileWorkflow(`
workflow: saga
on_failure: revert
activities:
  placed:  { kind: trigger }
  reserve: { kind: task, task: reserve-stock, revert: release-stock }
  wrap:    { kind: task, task: wrap-gift }
  charge:  { kind: task, task: charge-card, retry: { attempts: 1 } }
transitions:
  placed: [reserve]
  reserve:
    - charge
    - { to: wrap, when: "false" }
`);

/** charge fails and its on: error transition takes it to refund: the job succeeds. */
const declined = compileWorkflow(`
workflow: declined
activities:
  placed: { kind: trigger }
  charge: { kind: task, task: charge-card, retry: { attempts: 1 } }
  refund: { kind: task, task: refund }
  hold:   { kind: hook, signal: go }
transitions:
  placed: [charge, hold]
  charge:
    - { to: refund, on: error }
`);

describe.skipIf(skipBackend)(
  "a graph job's view: legend, reverted vs skipped, failures, resume",
  () => {
    let store: Store;
    let close: () => Promise<void>;
    let client: Client;
    let worker: Worker;
    let api: ReturnType<typeof createHttpApi>;

    const call = async (path: string, init: RequestInit = {}) => {
      const response = await api.request(path, init);
      return { status: response.status, body: (await response.json()) as Body };
    };
    const post = (path: string) =>
      call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const digit = (detail: Body, activity: string) =>
      detail.digits.find((d: Body) => d.activity === activity);
    /** The job's detail once `ok` holds of it. */
    const detailWhen = async (id: string, ok: (detail: Body) => boolean) => {
      let last: Body;
      await waitFor(async () => {
        last = (await call(`/api/jobs/${id}`)).body;
        return ok(last);
      }, `job ${id}`);
      return last;
    };

    beforeAll(async () => {
      ({ store, close } = await openTestStore());
      client = new Client(store);
      await client.deploy(saga);
      await client.deploy(declined);
      worker = new Worker({
        store,
        concurrency: 2,
        handlers: {
          'reserve-stock': async () => ({ held: 1 }),
          'release-stock': async () => ({ released: 1 }),
          'wrap-gift': async () => ({ wrapped: true }),
          'charge-card': async () => {
            throw new Error('card declined');
          },
          refund: async () => ({ refunded: true }),
        },
      });
      await worker.start();
      api = createHttpApi({ store, client, pollMs: 50 });
    });
    afterAll(async () => {
      await worker?.stop();
      await close?.();
    });

    it('tells the reverted activity from the skipped one (both 3) and marks the failed one', async () => {
      const job = await client.start('saga', { sku: 'tea' });
      const ended = await client.result(job.id, { wait: true, timeoutMs: 20_000 });
      expect(ended.state).toBe('REVERTED');
      const { status, body } = await call(`/api/jobs/${job.id}`);
      expect(status).toBe(200);
      expect(digit(body, 'reserve')).toMatchObject({
        digit: 3,
        label: 'Skipped',
        state: 'Reverted',
        failure: null,
      });
      expect(digit(body, 'wrap')).toMatchObject({
        digit: 3,
        label: 'Skipped',
        state: 'Skipped',
        failure: null,
      });
      expect(digit(body, 'charge')).toMatchObject({
        digit: 7,
        state: 'Errored',
        failure: 'unhandled',
      });
      expect(digit(body, 'placed').failure).toBeNull();
    });

    it('marks a failure an on: error transition took as handled, on a job that did not fail', async () => {
      const job = await client.start('declined', {});
      const detail = await detailWhen(job.id, (d) => digit(d, 'refund')?.digit === 6);
      expect(digit(detail, 'charge')).toMatchObject({
        digit: 6,
        state: 'Completed',
        failure: 'handled',
      });
      expect(digit(detail, 'refund').failure).toBeNull();
      await client.signal(job.id, 'go', null);
    });

    it("gives a graph job the legend of every digit and of the semaphore's fields", async () => {
      const job = await client.start('saga', { sku: 'figs' });
      await client.result(job.id, { wait: true, timeoutMs: 20_000 });
      const { legend } = (await call(`/api/jobs/${job.id}`)).body;
      expect(legend.digits.map((d: Body) => d.digit)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(legend.digits.find((d: Body) => d.digit === 5)).toMatchObject({
        label: 'Paused',
        active: true,
      });
      expect(legend.digits.find((d: Body) => d.digit === 3).meaning).toMatch(/skipped.*reverted/);
      expect(legend.digits.find((d: Body) => d.digit === 7).meaning).toMatch(/FAILURE/);
      expect(legend.positions).toMatch(/sorted/);
      expect(legend.semaphore.map((f: Body) => f.digits)).toEqual(['1', '2', '3', '4–9', '10–15']);
    });

    it('resumes only a suspended job: a running or ended one is a 409 that names its state', async () => {
      const job = await client.start('declined', {});
      await detailWhen(
        job.id,
        (d) => digit(d, 'hold')?.digit === 5 && digit(d, 'refund')?.digit === 6,
      );
      const running = await post(`/api/jobs/${job.id}/resume`);
      expect(running.status).toBe(409);
      expect(running.body.error).toMatchObject({ code: 'NOT_SUSPENDED' });
      expect(running.body.error.message).toContain(`job ${job.id} is RUNNING, not SUSPENDED`);
      // Nothing changed, and the history records no resume.
      expect((await client.result(job.id)).state).toBe('RUNNING');
      expect((await client.history(job.id)).some((e) => e.kind === 'resume')).toBe(false);

      expect((await post(`/api/jobs/${job.id}/pause`)).status).toBe(200);
      expect((await client.result(job.id)).state).toBe('SUSPENDED');
      expect(await post(`/api/jobs/${job.id}/resume`)).toMatchObject({
        status: 200,
        body: { state: 'RUNNING' },
      });
      await client.signal(job.id, 'go', null);
      expect((await client.result(job.id, { wait: true, timeoutMs: 20_000 })).state).toBe(
        'SUCCESS',
      );
      const ended = await post(`/api/jobs/${job.id}/resume`);
      expect(ended.status).toBe(409);
      expect(ended.body.error.message).toContain('is SUCCESS, not SUSPENDED');

      expect((await post('/api/jobs/no-such-job/resume')).status).toBe(404);
    });
  },
);
