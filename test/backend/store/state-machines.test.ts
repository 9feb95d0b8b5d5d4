/**
 * Every state machine of core/states is enforced where its states are written: a forged
 * illegal move of a job (flow), an activity (task, retry) or a stream message (claim) is
 * refused with InvalidStateError and changes nothing — on the store under test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { InvalidStateError } from '../../../src/core/errors.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { GraphEngine } from '../../../src/engine/graph-engine.js';
import { JobState } from '../../../src/engine/job-state.js';
import { ENGINE_STREAM, type EngineMessage, taskStream } from '../../../src/engine/messages.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore, skipBackend } from '../../support/store-under-test.js';

const flow = compileWorkflow(`
workflow: machines
activities:
  start: { kind: trigger }
  a:     { kind: task, task: work }
transitions:
  start: [a]
`);

let store: Store;
let close: () => Promise<void>;
let client: Client;
beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
  await client.deploy(flow);
});
afterEach(async () => close());

describe.skipIf(skipBackend)('every machine enforced', () => {
  it('flow: an illegal job move throws and rolls back the whole transaction', async () => {
    const job = await client.start('machines', {});
    const before = await store.countMessages();
    const attempt = store.transaction(async (tx) => {
      await tx.append([{ stream: 'elsewhere', payload: { forged: true } }]);
      await tx.setJobState(job.id, 'RUNNING', 'PENDING');
    });
    await expect(attempt).rejects.toThrow(InvalidStateError);
    await expect(attempt).rejects.toThrow(/flow .* RUNNING -> PENDING/);
    expect((await store.getJob(job.id))?.state).toBe('RUNNING');
    expect(await store.countMessages()).toBe(before);
    // Suspended jobs only go back to RUNNING; finished ones never to SUSPENDING's end.
    await store.setJobState(job.id, 'RUNNING', 'SUSPENDING');
    await store.setJobState(job.id, 'SUSPENDING', 'SUSPENDED');
    await expect(store.setJobState(job.id, 'SUSPENDED', 'SUCCESS')).rejects.toThrow(
      InvalidStateError,
    );
    expect((await store.getJob(job.id))?.state).toBe('SUSPENDED');
  });

  it('task: an activity record takes only task states, and only legal moves', async () => {
    const job = await client.start('machines', {});
    await expect(
      store.putActivity({ job: job.id, activity: 'a', status: 'DONE' as never }),
    ).rejects.toThrow(InvalidStateError);
    expect(await store.getActivity(job.id, 'a')).toBeUndefined();

    // Forge a record that says SUCCESS while the key still says `a` is pending: entering
    // `a` would move it SUCCESS -> RUNNING, which the task machine refuses, so the whole
    // step rolls back — no key move, no task message, the record as it was.
    await store.putActivity({ job: job.id, activity: 'a', status: 'RUNNING' });
    await store.putActivity({ job: job.id, activity: 'a', status: 'SUCCESS', output: 1 });
    const engine = new GraphEngine();
    const stepOne = async () => {
      const [m] = await store.peek(ENGINE_STREAM, 1);
      if (!m) throw new Error('no engine message');
      await store.transaction(async (tx) => {
        await engine.handle(tx, m.payload as unknown as EngineMessage);
        await tx.remove(ENGINE_STREAM, [m.id]);
      });
    };
    await stepOne(); // the trigger: it enters `a` next
    const keyBefore = await store.getCounter({ job: job.id, field: 'collation' });
    await expect(stepOne()).rejects.toThrow(/task a of job .* SUCCESS -> RUNNING/);
    expect(await store.countMessages(ENGINE_STREAM)).toBe(1);
    expect(await store.getCounter({ job: job.id, field: 'collation' })).toBe(keyBefore);
    expect(await store.countMessages(taskStream('work'))).toBe(0);
    expect((await store.getActivity(job.id, 'a'))?.status).toBe('SUCCESS');
  });

  it('task and retry: the planner refuses moves off their machines', async () => {
    const job = await client.start('machines', {});
    await store.transaction(async (tx) => {
      const state = new JobState(tx, (await tx.lockJob(job.id)) as never);
      state.seed([], [], ['']);
      const put = (activity: string, status: string, machine?: 'task' | 'retry') =>
        state.putActivity({ job: job.id, activity, status: status as never }, 0, { machine });
      expect(() => put('a', 'SUCCESS')).toThrow(/PENDING -> SUCCESS/);
      put('a', 'RUNNING');
      expect(() => put('a', 'REVERTED')).toThrow(/RUNNING -> REVERTED/);
      expect(() => put('a', 'RETRYING')).toThrow(InvalidStateError);
      put('r', 'RUNNING', 'retry');
      put('r', 'SUCCESS', 'retry');
      put('r', 'RETRYING', 'retry');
      expect(() => put('r', 'SUCCESS', 'retry')).toThrow(/RETRYING -> SUCCESS/);
    });
  });

  it('claim: a message never claimed cannot complete; a lost lease is a plain false', async () => {
    const [id] = await store.append([{ stream: 's', payload: 1 }]);
    await expect(store.ack('s', id as string, 'me')).rejects.toThrow(
      /claim message .* UNCLAIMED -> COMPLETE/,
    );
    await expect(store.ackMany('s', [id as string], 'me')).rejects.toThrow(InvalidStateError);
    expect(await store.countMessages('s')).toBe(1);
    // Inside a transaction the refusal rolls back what came before it.
    const attempt = store.transaction(async (tx) => {
      await tx.append([{ stream: 's', payload: 2 }]);
      await tx.ack('s', id as string, 'me');
    });
    await expect(attempt).rejects.toThrow(InvalidStateError);
    expect(await store.countMessages('s')).toBe(1);
    const [claimed] = await store.claim('s', { consumer: 'me', leaseMs: 60_000 });
    expect(claimed?.id).toBe(id);
    expect(await store.ack('s', id as string, 'someone else')).toBe(false);
    expect(await store.ack('s', id as string, 'me')).toBe(true);
    // COMPLETE is final: acking again, releasing or extending change nothing.
    expect(await store.ack('s', id as string, 'me')).toBe(false);
    expect(await store.release('s', id as string, 'me')).toBe(false);
    expect(await store.extendLease('s', [id as string], 'me', 1000)).toEqual([]);
  });
});
