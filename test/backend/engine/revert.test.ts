/**
 * Graph compensation (`on_failure: revert`): when a job would end FAILURE, every finished
 * task with a `revert:` handler has it run, one at a time, newest completion first, with
 * `{ input, output, error }` of its run; the job ends REVERTED, or FAILURE naming the
 * revert that failed. Read off the handlers' own log, the job view and the semaphores.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Json } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { singleAttempt } from '../../support/single-attempt.js';
import { openTestStore } from '../../support/store-under-test.js';

let store: Store;
let close: () => Promise<void>;
let clock: SimulatedClock;
let client: Client;

beforeEach(async () => {
  clock = new SimulatedClock();
  ({ store, close } = await openTestStore({ clock }));
  client = new Client(store, { clock });
});
afterEach(async () => close());

async function run(yaml: string, handlers: TaskHandlers, input: Json = { order: 'A1' }) {
  const wf = singleAttempt(compileWorkflow(yaml));
  await client.deploy(wf);
  const job = await client.start(wf.workflow, input);
  await new EngineStepper(store, handlers, clock).runUntilIdle();
  return client.status(job.id);
}

/** Handlers that log their name (and what a revert got) and succeed, except `failing`. */
function logging(names: string[], failing: string[] = [], log: string[] = [], got: Json[] = []) {
  const handlers: TaskHandlers = {};
  for (const name of names) {
    handlers[name] = async (input) => {
      log.push(name);
      if (name.startsWith('un') || name === 'release' || name === 'refund') got.push(input);
      if (failing.includes(name)) throw new Error(`${name} broke`);
      return { did: name };
    };
  }
  return { handlers, log, got };
}

const saga = (onFailure = 'revert') => `
workflow: saga
on_failure: ${onFailure}
activities:
  start:   { kind: trigger }
  reserve: { kind: task, revert: release }
  charge:  { kind: task, revert: refund, input: "{ 'amount': 5, 'hold': reserve.output }" }
  notify:  { kind: task }
  ship:    { kind: task, revert: unship }
transitions:
  start: [reserve]
  reserve: [charge]
  charge: [notify]
  notify: [ship]
`;
const sagaTasks = ['reserve', 'charge', 'notify', 'ship', 'release', 'refund', 'unship'];

describe('graph revert', () => {
  it('reverts every finished task with a revert, newest first, and ends REVERTED', async () => {
    const { handlers, log, got } = logging(sagaTasks, ['ship']);
    const view = await run(saga(), handlers);
    expect(log).toEqual(['reserve', 'charge', 'notify', 'ship', 'unship', 'refund', 'release']);
    expect(view.state).toBe('REVERTED');
    // The failed run is reverted too; its revert sees its error and no output.
    expect(got[0]).toMatchObject({ input: { order: 'A1' }, output: null });
    expect((got[0] as { error: { message: string } }).error.message).toBe('ship broke');
    expect(got[1]).toEqual({
      input: { amount: 5, hold: { did: 'reserve' } },
      output: { did: 'charge' },
      error: null,
    });
    const status = Object.fromEntries(view.activities.map((a) => [a.id, a.status]));
    expect(status).toMatchObject({
      reserve: 'REVERTED',
      charge: 'REVERTED',
      notify: 'SUCCESS',
      ship: 'REVERTED',
    });
    // Nothing active is left in the key; the job's error still says why it reverted.
    expect(view.collation).not.toMatch(/[985]/);
    expect(view.error?.message).toMatch(/ship broke/);
    // One revert semaphore per reverted run, Leg1 and Leg2 each passed once.
    const counters = await store.listCounters(view.id);
    const revertSems = [...counters.entries()].filter(([k]) => k.includes('revert-sem'));
    expect(revertSems).toHaveLength(3);
    for (const [, value] of revertSems) expect(value).toBe(888_000_001_000_001n);
  });

  it('without on_failure: revert a failure ends FAILURE and runs no revert', async () => {
    const { handlers, log } = logging(sagaTasks, ['ship']);
    const view = await run(saga('fail'), handlers);
    expect(log).toEqual(['reserve', 'charge', 'notify', 'ship']);
    expect(view.state).toBe('FAILURE');
  });

  it('a job that succeeds runs no revert', async () => {
    const { handlers, log } = logging(sagaTasks);
    const view = await run(saga(), handlers);
    expect(log).toEqual(['reserve', 'charge', 'notify', 'ship']);
    expect(view.state).toBe('SUCCESS');
  });

  it('a revert that fails ends the job FAILURE naming it; the other reverts still run', async () => {
    const { handlers, log } = logging(sagaTasks, ['ship', 'refund']);
    const view = await run(saga(), handlers);
    expect(log).toEqual(['reserve', 'charge', 'notify', 'ship', 'unship', 'refund', 'release']);
    expect(view.state).toBe('FAILURE');
    expect(view.error).toMatchObject({ code: 'REVERT_FAILURE', activity: 'charge' });
    expect(view.error?.message).toMatch(/revert of charge failed: refund broke/);
    const charge = view.activities.find((a) => a.id === 'charge');
    expect(charge?.status).toBe('REVERT_FAILURE');
    expect(charge?.digit).toBe(7);
  });

  it('a revert is retried by its task retry policy', async () => {
    let refunds = 0;
    const { handlers, log } = logging(sagaTasks, ['ship']);
    handlers.refund = async () => {
      log.push('refund');
      refunds++;
      if (refunds === 1) throw new Error('gateway down');
      return 'refunded';
    };
    const yaml = saga().replace(
      'revert: refund,',
      "revert: refund, retry: { attempts: 2, backoff: '1s' },",
    );
    const wf = singleAttempt(compileWorkflow(yaml));
    await client.deploy(wf);
    const job = await client.start(wf.workflow, {});
    const stepper = new EngineStepper(store, handlers, clock);
    await stepper.runUntilIdle();
    await clock.advance(1000);
    await stepper.runUntilIdle();
    const view = await client.status(job.id);
    expect(log).toEqual([
      'reserve',
      'charge',
      'notify',
      'ship',
      'unship',
      'refund',
      'refund',
      'release',
    ]);
    expect(view.state).toBe('REVERTED');
  });

  it('parallel branches revert in the reverse of the order they finished in', async () => {
    const yaml = `
workflow: fan
on_failure: revert
activities:
  start: { kind: trigger }
  a:     { kind: task, revert: undo_a }
  b:     { kind: task, revert: undo_b }
  c:     { kind: task, revert: undo_c }
  d:     { kind: task }
transitions:
  start: [a, b]
  a: [c]
  b: [d]
`;
    const { handlers, log } = logging(['a', 'b', 'c', 'd', 'undo_a', 'undo_b', 'undo_c'], ['d']);
    const view = await run(yaml, handlers);
    expect(view.state).toBe('REVERTED');
    const ran = log.filter((n) => !n.startsWith('undo') && n !== 'd');
    const undone = log.filter((n) => n.startsWith('undo')).map((n) => n.slice(5));
    expect(undone).toEqual([...ran].reverse());
    // Reverse topological order holds whatever the interleaving: c before a.
    expect(undone.indexOf('c')).toBeLessThan(undone.indexOf('a'));
  });
});
