/**
 * Leases of the agent protocol, on a simulated clock: a decision handed out and never
 * finished is handed out again under a new uuid once its lease runs out, and the first
 * uuid answers 409; a task whose lease ran out is handed out again and its first result
 * wins; a failed task reaches the decision as the seed's onFailure.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import { type Serving, serve } from '../../../src/server/serve.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { HttpAgent } from './http-agent.js';

const LEASE = 1000;
let clock: SimulatedClock;
let store: Store;
let close: () => Promise<void>;
let serving: Serving;
let client: Client;
let agent: HttpAgent;

beforeEach(async () => {
  clock = new SimulatedClock();
  ({ store, close } = await openTestStore({ clock }));
  serving = await serve({
    store,
    clock,
    port: 0,
    leaseMs: LEASE,
    engine: false,
    workflows: ['sum'],
    tasks: ['double', 'square', 'add'],
  });
  client = new Client(store, { clock });
  agent = new HttpAgent(serving.url);
});
afterEach(async () => {
  await serving.close();
  await close();
});

const instanceOf = async (id: string) => (await readInstance(store, id)) as Instance;

describe.skipIf(skipBackend)('weft serve: leases', () => {
  it('hands an abandoned decision out again under a new uuid; the old one answers 409', async () => {
    const job = await client.start('sum', [3, 4]);
    const first = await agent.job();
    expect(first).toMatchObject({ action: 'DecisionScheduled', instance: job.id });
    // The first agent starts the branch, then goes silent.
    expect((await agent.call('GET', `/decisions/${first.uuid}/branch`)).body.branch.type).toBe(
      'handle',
    );
    expect(await agent.job()).toEqual({ action: 'None' }); // still leased
    await clock.advance(LEASE + 1);

    const second = await agent.job();
    expect(second).toMatchObject({ action: 'DecisionScheduled', instance: job.id });
    expect(second.uuid).not.toBe(first.uuid);
    expect((await instanceOf(job.id)).decision_uuid).toBe(second.uuid);

    const stale = await agent.call('GET', `/decisions/${first.uuid}/branch`);
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'STALE_DECISION', uuid: first.uuid });
    const staleExecute = await agent.call('POST', `/decisions/${first.uuid}/execute`, [
      { name: 'double', input: 3, position: '0.0' },
    ]);
    expect(staleExecute.status).toBe(409);

    // The second agent completes it; the instance goes on.
    await agent.decide(second.uuid);
    const instance = await instanceOf(job.id);
    expect(instance.decision_ongoing).toBe(false);
    expect(instance.statuses.map((s) => s.name)).toEqual(['double', 'square']);
    expect(await store.countMessages('decide:sum')).toBe(0);
  });

  it('hands a task out again after its lease; the first result wins, a second is refused', async () => {
    const job = await client.start('sum', [3, 4]);
    expect(await agent.step()).toBe('DecisionScheduled');
    const tasksOnly = '?workflows=&tasks=double';
    const first = await agent.job(tasksOnly);
    expect(first).toMatchObject({ action: 'TaskScheduled', name: 'double', input: 3 });
    expect(first.uuid).toBe(`${job.id}.0.0.0`); // <instance>.<branch>.<position>
    expect(first.hash).toBe((await instanceOf(job.id)).statuses[0]?.hash);
    expect(await agent.job(tasksOnly)).toEqual({ action: 'None' });
    // A heartbeat keeps the lease; without one it runs out.
    expect((await agent.call('POST', `/tasks/${first.uuid}/heartbeat`)).body).toEqual({
      leaseMs: LEASE,
    });
    await clock.advance(LEASE + 1);
    const second = await agent.job(tasksOnly);
    expect(second).toMatchObject({ action: 'TaskScheduled', uuid: first.uuid, name: 'double' });

    expect(await agent.runTask(first.uuid, 'double', 3)).toEqual({ status: 'recorded' });
    const late = await agent.call('POST', `/tasks/${first.uuid}`, {
      status: 'completed',
      output: 6,
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('INVALID_STATE');
    const double = (await instanceOf(job.id)).statuses[0];
    expect(double).toMatchObject({ name: 'double', started: true });
    // Recorded once: the onSuccess is buffered or decided once, whatever came after.
    const instance = await instanceOf(job.id);
    const successes = [
      ...instance.buffer.filter((a) => a.type === 'onSuccess'),
      ...instance.branches.filter((b) => b.type === 'onSuccess'),
    ];
    expect(successes).toHaveLength(1);
  });

  it('delivers a failed task to the decision as the seed onFailure', async () => {
    const job = await client.start('sum', [3, 4]);
    expect(await agent.step()).toBe('DecisionScheduled');
    const fail = async (attempt: number) => {
      const task = await agent.job('?workflows=&tasks=double');
      expect(task).toMatchObject({ action: 'TaskScheduled', attempt });
      const failed = await agent.call('POST', `/tasks/${task.uuid}`, {
        status: 'failed',
        error: { code: 42, name: 'Boom', message: 'no doubling today', stacktrace: 'at x' },
      });
      expect(failed.body).toEqual({ status: 'recorded' });
    };
    // The default policy retries it (three attempts, 1 s then 2 s apart) before the
    // decision hears of a failure; no attempt is handed out before its time.
    await fail(1);
    expect((await agent.job('?workflows=&tasks=double')).action).toBe('None');
    await clock.advance(1000);
    await fail(2);
    await clock.advance(1999);
    expect((await agent.job('?workflows=&tasks=double')).action).toBe('None');
    await clock.advance(1);
    await fail(3);
    // onStart(double), then onFailure(double) and handle again.
    expect(await agent.step()).toBe('DecisionScheduled');
    const offer = await agent.job();
    const path = `/decisions/${offer.uuid}`;
    const onFailure = (await agent.call('GET', `${path}/branch`)).body;
    expect(onFailure.branch).toMatchObject({
      type: 'onFailure',
      task_name: 'double',
      error_name: 'Boom',
      error_input: { name: 'Boom', message: 'no doubling today', code: '42', stack: 'at x' },
    });
    await agent.call('POST', `${path}/branch`, { properties: {} });
    expect((await agent.call('GET', `${path}/branch`)).body.branch.type).toBe('handle');
    const answer = await agent.call('POST', `${path}/execute`, [
      { name: 'double', input: 3, position: '0.0' },
      { name: 'square', input: 4, position: '0.1' },
    ]);
    expect(answer.body).toMatchObject({
      status: 'failed',
      index: 0,
      error: { name: 'Boom', code: '42' },
    });
    // The agent's code does not catch it: the branch fails, and so does the instance.
    const end = await agent.call('POST', `${path}/branch`, {
      properties: {},
      error: { name: 'TaskFailedError', message: 'double failed' },
    });
    expect(end.body).toEqual({ status: 'failed' });
    expect((await agent.call('GET', `${path}/branch`)).body).toEqual({});
    const done = await client.result(job.id);
    expect(done.state).toBe('FAILURE');
    expect(done.error).toMatchObject({ name: 'TaskFailedError', message: 'double failed' });
  });
});
