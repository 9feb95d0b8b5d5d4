/**
 * `weft serve` driven by a plain HTTP client playing a non-TypeScript agent: a code-first
 * instance started through the Client runs to its end with decisions and tasks over
 * HTTP; its history is the seed's; bad requests get typed 4xx answers and change
 * nothing; a different work at a known position answers `modified`; long polls wake on
 * new work.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import type { Instance } from '../../../src/durable/instance.js';
import { readInstance } from '../../../src/durable/stored-instance.js';
import { type Serving, serve } from '../../../src/server/serve.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';
import { type Answer, HttpAgent } from './http-agent.js';

let store: Store;
let close: () => Promise<void>;
let serving: Serving;
let client: Client;
let agent: HttpAgent;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  serving = await serve({
    store,
    port: 0,
    workflows: ['sum'],
    tasks: ['double', 'square', 'add'],
    logger: { error: (m, e) => console.error(m, e), info() {} },
  });
  client = new Client(store);
  agent = new HttpAgent(serving.url);
});
afterEach(async () => {
  await serving.close();
  await close();
});

const instanceOf = async (id: string) => (await readInstance(store, id)) as Instance;

async function driveToEnd(jobId: string, limit = 50): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const job = await store.getJob(jobId);
    if (job && job.state !== 'RUNNING') return;
    await agent.step();
  }
  throw new Error(`job ${jobId} did not end after ${limit} jobs: ${agent.log.join(' ')}`);
}

/** Everything a request could have changed: the job, its counters, the streams. */
async function snapshot(jobId: string) {
  const job = await store.getJob(jobId);
  const counters = Object.fromEntries(
    [...(await store.listCounters(jobId))].map(([k, v]) => [k, v.toString()]),
  );
  const streams: Record<string, unknown> = {};
  for (const name of ['decide:sum', 'task:double', 'task:square', 'task:add', 'durable']) {
    streams[name] = (await store.peek(name, 100)).map((m) => [m.id, m.deliveries, m.leaseUntil]);
  }
  return { job, counters, streams };
}

function expectTypedError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body.error).toMatchObject({ code, name: expect.any(String) });
  expect(typeof answer.body.error.message).toBe('string');
}

describe.skipIf(skipBackend)('weft serve: the agent protocol over HTTP', () => {
  it('drives a code-first instance to SUCCESS with the seed history', async () => {
    // Registered by `--workflows`, so the Client can start it by name.
    expect(await store.getDefinition('sum')).toMatchObject({ model: 'durable' });
    const job = await client.start('sum', [3, 4]);
    await driveToEnd(job.id);

    const done = await client.result(job.id);
    expect(done).toMatchObject({ state: 'SUCCESS', output: 22 }); // 3*2 + 4^2
    // Each task start reports onStart (a decision), each result onSuccess (a decision).
    expect(agent.log).toEqual(['D', 'T:double', 'D', 'D', 'T:square', 'D', 'D', 'T:add', 'D', 'D']);

    const instance = await instanceOf(job.id);
    // The seed's rules: onStart and onSuccess branches per work; `handle` (branch 0)
    // runs again after each completion of a work it waits for.
    expect(instance.executions).toEqual([0, 1, 2, 0, 3, 4, 0, 5, 6, 0]);
    expect(instance.branches.map((b) => [b.type, b.task_name ?? null, b.ended])).toEqual([
      ['handle', null, true],
      ['onStart', 'double', true],
      ['onSuccess', 'double', true],
      ['onStart', 'square', true],
      ['onSuccess', 'square', true],
      ['onStart', 'add', true],
      ['onSuccess', 'add', true],
    ]);
    expect(instance.branches[0]?.output).toBe(22);
    expect(
      instance.statuses.map((s) => [s.name, s.position, s.status, s.completion_index, s.output]),
    ).toEqual([
      ['double', '0.0', 'completed', 2, 6],
      ['square', '0.1', 'completed', 5, 16],
      ['add', '1', 'completed', 8, 22],
    ]);
    // properties(n) after the n-th execution: each onSuccess counts; handle's `phase`
    // merges over them key by key.
    expect(instance.properties).toEqual([
      { key: 0, values: {} },
      { key: 3, values: { completed: 1 } },
      { key: 6, values: { completed: 2 } },
      { key: 7, values: { completed: 2, phase: 'adding' } },
      { key: 9, values: { completed: 3, phase: 'adding' } },
      { key: 10, values: { completed: 3, phase: 'done' } },
    ]);
    expect(await store.countMessages()).toBe(0);
    expect(await agent.job()).toEqual({ action: 'None' });
  });

  it('refuses bad requests with typed 4xx errors and changes nothing', async () => {
    const job = await client.start('sum', [1, 2]);
    const offer = await agent.job();
    expect(offer).toMatchObject({ action: 'DecisionScheduled', name: 'sum', instance: job.id });
    const uuid = offer.uuid as string;
    const before = await snapshot(job.id);
    const bad: [Promise<Answer>, number, string, string?][] = [
      [agent.call('GET', '/decisions/no-such-uuid/branch'), 404, 'NOT_FOUND'],
      [agent.call('POST', `/decisions/${uuid}/execute`, '[{"name": '), 400, 'BAD_JSON'],
      [
        agent.call('POST', `/decisions/${uuid}/execute`, [{ name: 'double', input: 1 }]),
        400,
        'VALIDATION',
        'body/0/position',
      ],
      [
        agent.call('POST', `/decisions/${uuid}/execute`, [
          { name: 'double', position: '0', colour: 'red' },
        ]),
        400,
        'VALIDATION',
      ],
      [
        agent.call('POST', `/decisions/${uuid}/execute`, [
          { name: 'double', position: '0' },
          { name: 'square', position: '0' },
        ]),
        400,
        'VALIDATION',
        'body/1',
      ],
      [agent.call('POST', `/decisions/${uuid}/execute`, {}), 400, 'VALIDATION'],
      [agent.call('POST', `/decisions/${uuid}/execute`), 400, 'VALIDATION'],
      // No branch is running yet: the session's state machine refuses.
      [
        agent.call('POST', `/decisions/${uuid}/execute`, [{ name: 'double', position: '0' }]),
        409,
        'INVALID_STATE',
      ],
      [agent.call('POST', `/decisions/${uuid}/branch`, { output: 1 }), 400, 'VALIDATION'],
      [
        agent.call('POST', `/decisions/${uuid}/branch`, {
          properties: {},
          output: 1,
          parked: true,
        }),
        400,
        'VALIDATION',
      ],
      [agent.call('POST', '/tasks/nope', { status: 'completed', output: 1 }), 404, 'NOT_FOUND'],
      [agent.call('POST', '/tasks/nope', { status: 'done' }), 400, 'VALIDATION'],
      [
        agent.call('POST', '/tasks/nope', { status: 'failed', error: { message: 'x' } }),
        400,
        'VALIDATION',
      ],
      [agent.call('GET', '/job?wait=soon'), 400, 'VALIDATION'],
      [agent.call('POST', '/agents', { workflows: [1] }), 400, 'VALIDATION'],
      [agent.call('DELETE', '/job'), 405, 'METHOD_NOT_ALLOWED'],
      [agent.call('GET', '/nowhere'), 404, 'NOT_FOUND'],
      [agent.call('GET', '/decisions/%E0%A4%A/branch'), 400, 'VALIDATION'],
    ];
    for (const [request, status, code, where] of bad) {
      const answer = await request;
      expectTypedError(answer, status, code);
      if (where) expect(answer.body.error.where).toBe(where);
    }
    expect(await snapshot(job.id)).toEqual(before);

    // The decision is still good: the agent carries on to the end.
    await agent.decide(uuid);
    await driveToEnd(job.id);
    expect(await client.result(job.id)).toMatchObject({ state: 'SUCCESS', output: 6 });
    // Reporting a task twice: the second is refused.
    const again = await agent.call('POST', `/tasks/${encodeURIComponent(`${job.id}.0.1`)}`, {
      status: 'completed',
      output: 0,
    });
    expectTypedError(again, 409, 'INVALID_STATE');
  });

  it('answers modified when the agent sends a different work at a known position', async () => {
    const job = await client.start('sum', [3, 4]);
    expect(await agent.step()).toBe('DecisionScheduled'); // schedules double, square
    expect(await agent.step()).toBe('TaskScheduled'); // double (its onStart: a decision)
    expect(await agent.step()).toBe('DecisionScheduled'); // onStart(double)
    const offer = await agent.job();
    expect(offer.action).toBe('DecisionScheduled'); // onSuccess(double), then handle again
    const path = `/decisions/${offer.uuid}`;
    expect((await agent.call('GET', `${path}/branch`)).body.branch.type).toBe('onSuccess');
    expect((await agent.call('POST', `${path}/branch`, { properties: {} })).body).toEqual({
      status: 'ended',
    });
    expect((await agent.call('GET', `${path}/branch`)).body.branch.type).toBe('handle');
    // The agent's code changed: `triple` where history has `double` at position 0.0.
    const answer = await agent.call('POST', `${path}/execute`, [
      { name: 'triple', input: 3, position: '0.0' },
      { name: 'square', input: 4, position: '0.1' },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'modified',
      error: { code: 'MODIFIED_DECIDER', position: '0.0' },
    });
    expect((await agent.call('GET', `${path}/branch`)).body).toEqual({});

    const stopped = await store.getJob(job.id);
    expect(stopped?.state).toBe('SUSPENDED');
    expect(stopped?.error).toMatchObject({ code: 'MODIFIED_DECIDER' });
    const instance = await instanceOf(job.id);
    expect(instance.decision_mode).toBe('modified');
    expect(instance.statuses.map((s) => s.name)).toEqual(['double', 'square']);

    // With the agent's code put back, resuming reruns the stopped decision to the end.
    await client.resume(job.id);
    await driveToEnd(job.id);
    expect(await client.result(job.id)).toMatchObject({ state: 'SUCCESS', output: 22 });
  });

  it('holds a job request open until work arrives (long poll on store notices)', async () => {
    const waiting = agent.job('?wait=30000');
    // Nothing is there yet; the request waits rather than answering None.
    const job = await client.start('sum', [5, 6]);
    expect(await waiting).toMatchObject({ action: 'DecisionScheduled', instance: job.id });
  });

  it('runs waits over HTTP: a duration (timer fired by the engine worker), then an event', async () => {
    await agent.call('POST', '/agents', { workflows: ['approval'] });
    // handle(): waitFor(20 ms); data = waitForEvent('go'); return data
    const handle = async (path: string) => {
      const nap = await agent.call('POST', `${path}/execute`, [
        { type: 'wait', timeout: 20, position: '0' },
      ]);
      if (nap.body.status !== 'completed') return {};
      const go = await agent.call('POST', `${path}/execute`, [
        { type: 'wait', event: 'go', position: '1' },
      ]);
      return go.body.status === 'completed' ? { output: go.body.outputs[0] } : {};
    };
    const decideAll = async () => {
      for (;;) {
        const offer = await agent.job('?workflows=approval&tasks=&wait=200');
        if (offer.action === 'None') return;
        const path = `/decisions/${offer.uuid}`;
        for (;;) {
          const next = (await agent.call('GET', `${path}/branch`)).body;
          if (next.branch === undefined) break;
          const end = next.branch.type === 'handle' ? await handle(path) : {};
          await agent.call('POST', `${path}/branch`, { properties: next.properties, ...end });
        }
      }
    };
    const job = await client.start('approval', []);
    await waitFor(async () => {
      await decideAll();
      return (await instanceOf(job.id)).waits.some((w) => w.event === 'go');
    }, 'the event wait');
    await client.sendEvent(job.id, 'go', { by: 'ana' });
    await decideAll();
    expect(await client.result(job.id)).toMatchObject({ state: 'SUCCESS', output: { by: 'ana' } });
    const instance = await instanceOf(job.id);
    expect(instance.statuses.map((s) => [s.type, s.input, s.status])).toEqual([
      ['wait', { durationMs: 20 }, 'completed'],
      ['wait', { event: 'go' }, 'completed'],
    ]);
    expect(instance.branches.map((b) => b.type)).toEqual([
      'handle',
      'onStart',
      'onSuccess',
      'onStart',
      'onEvent',
      'onSuccess',
    ]);
  });

  it('registers agents with POST /agents and filters jobs by name', async () => {
    const registered = await agent.call('POST', '/agents', { workflows: ['other'], tasks: ['x'] });
    expect(registered.body).toEqual({
      workflows: ['sum', 'other'],
      tasks: ['double', 'square', 'add', 'x'],
    });
    expect(await store.getDefinition('other')).toMatchObject({ model: 'durable' });
    const job = await client.start('sum', [1, 1]);
    // An agent that only runs tasks does not get the decision.
    expect(await agent.job('?workflows=&tasks=double')).toEqual({ action: 'None' });
    expect(await agent.job('?workflows=sum')).toMatchObject({ instance: job.id });
  });
});
