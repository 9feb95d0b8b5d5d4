/**
 * `GET /api/jobs/:id`'s `timeline` on the store under test: a code-first job's steps in
 * the order its code met them — a task that failed twice and was retried (each attempt
 * with its start, end and error, and the backoff it waited out), a property change, a
 * wait for an event (its deadline) and the event that came, a sleep, a child workflow
 * and a dispatched task — each with its start, end and duration; the reverts of a failed
 * saga after its tasks; a graph job's activity records on the same axis, with a retried
 * task's attempts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { defineTask, defineWorkflow, Workflow } from '../../../src/durable/index.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { createHttpApi } from '../../../src/server/http-api/api.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read as JSON, field by field
type Body = any;

let flakyCalls = 0;
const flaky = defineTask(
  'reserve',
  (sku: string) => {
    flakyCalls += 1;
    if (flakyCalls <= 2) throw new Error(`warehouse busy (${flakyCalls})`);
    return { sku, held: true };
  },
  { retry: { attempts: 3, backoff: '30ms' } },
);
const label = defineTask('label', (sku: string) => ({ label: `L-${sku}` }));
const notify = defineTask('notify', (to: string) => ({ sent: to }));

const child = defineWorkflow(
  'print-label',
  class extends Workflow {
    async handle(sku: string) {
      return this.execute(label, sku);
    }
  },
);

const shipment = defineWorkflow(
  'shipment',
  class extends Workflow {
    stage = 'new';
    async handle(sku: string) {
      const held = await this.execute(flaky, sku);
      this.stage = 'held';
      const ok = await this.waitForEvent<{ by: string }>('approved', { timeoutMs: 60_000 });
      await this.waitFor(20);
      const printed = await this.execute(child, sku);
      await this.dispatch(notify, ok?.by ?? 'nobody');
      return { held, printed };
    }
  },
);

const release = defineTask('release', () => 'released');
const unship = defineTask('unship', () => 'unshipped');
const hold = defineTask('hold', (sku: string) => ({ hold: `H-${sku}` }), { revert: release });
const ship = defineTask(
  'ship',
  () => {
    throw new Error('no courier');
  },
  { revert: unship, retry: { attempts: 1 } },
);
const saga = defineWorkflow(
  'saga',
  class extends Workflow {
    async handle(sku: string) {
      await this.execute(hold, sku);
      await this.execute(ship);
    }
  },
  { onFailure: 'revert' },
);

const retried = compileWorkflow(`
workflow: retried
activities:
  start: { kind: trigger }
  call:  { kind: task, retry: { attempts: 2, backoff: 20ms } }
transitions:
  start: [call]
output: "call.output"
`);

describe.skipIf(skipBackend)('the job timeline (HTTP API)', () => {
  let store: Store;
  let close: () => Promise<void>;
  let client: Client;
  let worker: Worker;
  let api: ReturnType<typeof createHttpApi>;
  let graphCalls = 0;

  const detail = async (id: string): Promise<Body> => {
    const response = await api.request(`/api/jobs/${id}`);
    expect(response.status).toBe(200);
    return response.json();
  };

  /** The job's detail, once `ok` holds of it. */
  const detailWhen = async (id: string, ok: (d: Body) => boolean, what: string): Promise<Body> => {
    let last: Body = null;
    await waitFor(
      async () => {
        last = await detail(id);
        return ok(last);
      },
      what,
      { intervalMs: 50 },
    );
    return last;
  };

  beforeAll(async () => {
    ({ store, close } = await openTestStore());
    client = new Client(store);
    await client.deploy(retried);
    worker = new Worker({
      store,
      concurrency: 4,
      idleMs: 50,
      workflows: [shipment, child, saga],
      tasks: [flaky, label, notify, hold, ship, release, unship],
      handlers: {
        call: () => {
          graphCalls += 1;
          if (graphCalls === 1) throw new Error('first call refused');
          return 'called';
        },
      },
      logger: { info() {}, warn() {}, error() {} },
    });
    await worker.start();
    api = createHttpApi({ store, client, pollMs: 50 });
  });
  afterAll(async () => {
    await worker?.stop();
    await close?.();
  });

  it("lists a code-first job's steps in the order they ran, with times, attempts, waits, events and properties", async () => {
    const job = await client.start('shipment', ['kale']);
    // While it waits for the event, the wait is a running step with its deadline.
    const waiting = await detailWhen(
      job.id,
      (d) => d.timeline.steps.some((s: Body) => s.kind === 'wait' && s.event === 'approved'),
      'the wait for approved',
    );
    const open = waiting.timeline.steps.find((s: Body) => s.event === 'approved');
    expect(open).toMatchObject({ name: 'wait for approved', status: 'RUNNING', finishedAt: null });
    const lasts = new Date(open.until).getTime() - new Date(open.startedAt).getTime();
    expect(Math.abs(lasts - 60_000)).toBeLessThan(1_000);
    expect(waiting.timeline.end).toBeNull();

    const sent = await api.request(`/api/jobs/${job.id}/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'approved', data: { by: 'ana' } }),
    });
    expect(sent.status).toBe(200);
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    const done = await detailWhen(
      job.id,
      (d) => d.timeline.steps.find((s: Body) => s.name === 'notify')?.status === 'SUCCESS',
      'the dispatched notify to complete',
    );
    const { timeline } = done;
    expect(timeline.start).toBe(done.job.createdAt);
    expect(timeline.end).toBe(done.job.finishedAt);
    expect(timeline.truncated).toBe(false);
    const names = timeline.steps.map((s: Body) => `${s.kind}:${s.name}`);
    expect(names).toEqual([
      'task:reserve',
      'properties:properties',
      'wait:wait for approved',
      'event:approved',
      'wait:sleep',
      'workflow:print-label',
      'task:notify',
    ]);

    const reserve = timeline.steps[0];
    expect(reserve).toMatchObject({ status: 'SUCCESS', output: { sku: 'kale', held: true } });
    expect(reserve.attempts.map((a: Body) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'completed'],
    ]);
    expect(reserve.attempts[0].error).toBe('Error: warehouse busy (1)');
    for (const [i, a] of reserve.attempts.entries()) {
      expect(a.startedAt).not.toBeNull();
      expect(a.finishedAt >= a.startedAt).toBe(true);
      if (i < 2) {
        // The next attempt began no earlier than the backoff allowed.
        expect(a.retryAt).not.toBeNull();
        expect(reserve.attempts[i + 1].startedAt >= a.retryAt).toBe(true);
      }
    }
    expect(reserve.startedAt).toBe(reserve.attempts[0].startedAt);
    expect(reserve.finishedAt).toBe(reserve.attempts[2].finishedAt);

    for (const step of timeline.steps) {
      expect(step.startedAt, step.name).not.toBeNull();
      expect(step.finishedAt, step.name).not.toBeNull();
      expect(step.durationMs).toBe(
        new Date(step.finishedAt).getTime() - new Date(step.startedAt).getTime(),
      );
      expect(step.startedAt >= timeline.start).toBe(true);
    }
    // In the order they ran.
    const starts = timeline.steps.map((s: Body) => s.scheduledAt ?? s.startedAt);
    expect([...starts].sort()).toEqual(starts);

    expect(timeline.steps[1].changed).toEqual({ stage: 'held' });
    const sleep = timeline.steps.find((s: Body) => s.name === 'sleep');
    expect(sleep.durationMs).toBeGreaterThanOrEqual(20);
    const printed = timeline.steps.find((s: Body) => s.kind === 'workflow');
    expect(printed).toMatchObject({ status: 'SUCCESS', output: { label: 'L-kale' } });
    expect(done.job.children.map((c: Body) => c.id)).toContain(printed.work);
    expect(timeline.steps.at(-1)).toMatchObject({ name: 'notify', dispatched: true });
  });

  it("shows a failed saga's reverts after its tasks, newest first", async () => {
    const job = await client.start('saga', ['kale']);
    const done = await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    expect(done.state).toBe('REVERTED');
    const { timeline } = await detail(job.id);
    expect(timeline.steps.map((s: Body) => `${s.kind}:${s.name}:${s.status}`)).toEqual([
      'task:hold:SUCCESS',
      'task:ship:FAILURE',
      'revert:unship:REVERTED',
      'revert:release:REVERTED',
    ]);
    const [, failed, undoShip, undoHold] = timeline.steps;
    expect(failed.attempts).toMatchObject([
      { attempt: 1, outcome: 'failed', error: 'Error: no courier' },
    ]);
    expect(failed.error.message).toBe('no courier');
    for (const revert of [undoShip, undoHold]) {
      expect(revert.attempts).toMatchObject([{ attempt: 1, outcome: 'completed' }]);
      expect(revert.startedAt >= failed.finishedAt).toBe(true);
      expect(revert.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(undoHold.startedAt >= undoShip.finishedAt).toBe(true);
  });

  it("puts a graph job's activities on the same axis, with a retried task's attempts", async () => {
    const job = await client.start('retried', {});
    await client.result(job.id, { wait: true, timeoutMs: 30_000 });
    const { timeline } = await detail(job.id);
    const call = timeline.steps.find((s: Body) => s.name === 'call');
    expect(call).toMatchObject({ kind: 'task', status: 'SUCCESS', output: 'called' });
    expect(call.attempts.map((a: Body) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
    expect(call.attempts[0].error).toBe('Error: first call refused');
    expect(call.durationMs).toBeGreaterThanOrEqual(0);
    expect(timeline.steps.map((s: Body) => s.name)).toEqual(['start', 'call']);
  });
});
