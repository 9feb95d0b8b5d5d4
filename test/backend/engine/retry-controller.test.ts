/**
 * Retry controllers on scopes (TaskFlow's): `{ times }`, `{ for_each: [...] }`,
 * `{ for_each: "<JSONata>" }`, `revert` and `revert_all`. A failed run is reverted
 * (newest first, from the handlers' own log), then run again with the next
 * `retry.value` / `retry.attempt`, or the scope fails (REVERT) or the whole job reverts
 * (REVERT_ALL). Nested: the inner controller REVERTs, the outer one RETRIES.
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

async function run(yaml: string, handlers: TaskHandlers, input: Json = {}) {
  const wf = singleAttempt(compileWorkflow(yaml));
  await client.deploy(wf);
  const job = await client.start(wf.workflow, input);
  await new EngineStepper(store, handlers, clock).runUntilIdle();
  const view = await client.status(job.id);
  const records = await store.listActivities(job.id);
  return { view, records };
}

/** The scope's record in the job's own thread. */
function scopeRecord(records: { activity: string; dimension: string }[], id: string) {
  return records.find((r) => r.activity === id && r.dimension === '') as
    | { status: string; input: Json; attempt: number }
    | undefined;
}

const payment = (retry: string, onFailure = 'fail') => `
workflow: pay
on_failure: ${onFailure}
activities:
  start: { kind: trigger }
  order: { kind: task, revert: cancel_order }
  payment:
    kind: scope
    retry: ${retry}
    activities:
      reserve: { kind: task, revert: release }
      charge:  { kind: task, input: "{ 'card': retry.value, 'attempt': retry.attempt }" }
    transitions: { reserve: [charge] }
    output: "charge.output"
  ship: { kind: task }
transitions: { start: [order], order: [payment], payment: [ship] }
`;

function paymentHandlers(works: (input: { card: Json; attempt: number }) => boolean) {
  const log: string[] = [];
  const handlers: TaskHandlers = {
    order: async () => {
      log.push('order');
      return 'O-1';
    },
    cancel_order: async () => {
      log.push('cancel_order');
      return null;
    },
    reserve: async () => {
      log.push('reserve');
      return 'H-1';
    },
    release: async () => {
      log.push('release');
      return null;
    },
    charge: async (input) => {
      const i = input as { card: Json; attempt: number };
      log.push(`charge ${JSON.stringify(i.card)}#${i.attempt}`);
      if (!works(i)) throw new Error(`declined ${JSON.stringify(i.card)}`);
      return { paid: i.card };
    },
    ship: async (input) => {
      log.push('ship');
      return input;
    },
  };
  return { log, handlers };
}

describe('retry controllers', () => {
  it('times: reverts the failed run and runs the scope again until it succeeds', async () => {
    const { log, handlers } = paymentHandlers((i) => i.attempt === 3);
    const { view, records } = await run(payment('{ times: 3 }'), handlers);
    expect(view.state).toBe('SUCCESS');
    expect(log).toEqual([
      'order',
      'reserve',
      'charge 1#1',
      'release',
      'reserve',
      'charge 2#2',
      'release',
      'reserve',
      'charge 3#3',
      'ship',
    ]);
    const scope = scopeRecord(records, 'payment');
    expect(scope?.status).toBe('SUCCESS');
    expect(scope?.input).toMatchObject({ retry: { value: 3, attempt: 3 } });
    // The scope's record went through the retry machine, RETRYING included.
    const history = await client.history(view.id);
    const moves = history
      .filter((h) => h.activity === 'payment' && h.kind === 'close')
      .map((h) => (h.change as { status?: string }).status);
    expect(moves).toEqual(['RETRYING', 'RUNNING', 'RETRYING', 'RUNNING', 'SUCCESS']);
    // Each run had its own thread; the reverted runs' reserve records say so.
    const reserves = records.filter((r) => r.activity === 'payment.reserve');
    expect(reserves.map((r) => [r.dimension, r.status]).sort()).toEqual([
      ['payment#1', 'REVERTED'],
      ['payment#2', 'REVERTED'],
      ['payment#3', 'SUCCESS'],
    ]);
  });

  it('times: out of runs it REVERTs and the job fails (on_failure: fail keeps order)', async () => {
    const { log, handlers } = paymentHandlers(() => false);
    const { view, records } = await run(payment('{ times: 2 }'), handlers);
    expect(view.state).toBe('FAILURE');
    expect(log).toEqual([
      'order',
      'reserve',
      'charge 1#1',
      'release',
      'reserve',
      'charge 2#2',
      'release',
    ]);
    expect(scopeRecord(records, 'payment')?.status).toBe('REVERTED');
    expect(view.error?.message).toMatch(/declined 2/);
  });

  it('for_each: one run per value until one succeeds', async () => {
    const { log, handlers } = paymentHandlers((i) => i.card === 'mc');
    const { view, records } = await run(payment("{ for_each: ['visa', 'amex', 'mc'] }"), handlers);
    expect(view.state).toBe('SUCCESS');
    expect(log.filter((l) => l.startsWith('charge'))).toEqual([
      'charge "visa"#1',
      'charge "amex"#2',
      'charge "mc"#3',
    ]);
    const scope = records.find((r) => r.activity === 'payment' && r.dimension === '');
    expect(scope?.output).toEqual({ paid: 'mc' });
    expect(scope?.input).toMatchObject({ retry: { value: 'mc', attempt: 3 } });
  });

  it('for_each over a JSONata expression takes its values from the job input', async () => {
    const { log, handlers } = paymentHandlers((i) => i.card === 'B');
    const { view } = await run(payment('{ for_each: "input.cards" }'), handlers, {
      cards: ['A', 'B', 'C'],
    });
    expect(view.state).toBe('SUCCESS');
    expect(log.filter((l) => l.startsWith('charge'))).toEqual(['charge "A"#1', 'charge "B"#2']);
  });

  it('revert: reverts the scope and the job on_failure decides (revert: all of it)', async () => {
    const { log, handlers } = paymentHandlers(() => false);
    const { view, records } = await run(payment('revert', 'revert'), handlers);
    expect(log).toEqual(['order', 'reserve', 'charge null#1', 'release', 'cancel_order']);
    expect(scopeRecord(records, 'payment')?.status).toBe('REVERTED');
    expect(view.state).toBe('REVERTED');
  });

  it('revert_all: reverts the scope and then the whole job, whatever on_failure says', async () => {
    const { log, handlers } = paymentHandlers(() => false);
    const { view } = await run(payment('revert_all', 'fail'), handlers);
    expect(log).toEqual(['order', 'reserve', 'charge null#1', 'release', 'cancel_order']);
    expect(view.state).toBe('REVERTED');
    expect(view.error?.code).toBe('REVERT_ALL');
  });

  it('revert_all with a revert that fails still runs the other reverts, then ends FAILURE', async () => {
    const { log, handlers } = paymentHandlers(() => false);
    handlers.release = async () => {
      log.push('release');
      throw new Error('stock gone');
    };
    const { view } = await run(payment('revert_all', 'fail'), handlers);
    expect(log).toEqual(['order', 'reserve', 'charge null#1', 'release', 'cancel_order']);
    expect(view.state).toBe('FAILURE');
    expect(view.error?.code).toBe('REVERT_FAILURE');
  });

  it('a job that reverts later undoes only the scope run that succeeded', async () => {
    const { log, handlers } = paymentHandlers((i) => i.attempt === 2);
    handlers.ship = async () => {
      log.push('ship');
      throw new Error('no courier');
    };
    const { view, records } = await run(payment('{ times: 2 }', 'revert'), handlers);
    expect(view.state).toBe('REVERTED');
    expect(log).toEqual([
      'order',
      'reserve',
      'charge 1#1',
      'release',
      'reserve',
      'charge 2#2',
      'ship',
      'release',
      'cancel_order',
    ]);
    const reserves = records.filter((r) => r.activity === 'payment.reserve');
    expect(reserves.every((r) => r.status === 'REVERTED')).toBe(true);
  });

  it('nested scopes: the inner controller REVERTs, the outer one RETRIES', async () => {
    const yaml = `
workflow: nested
activities:
  start: { kind: trigger }
  outer:
    kind: scope
    retry: { times: 2 }
    activities:
      book: { kind: task, revert: unbook, input: "{ 'attempt': retry.attempt }" }
      inner:
        kind: scope
        retry: revert
        activities:
          hold: { kind: task, revert: unhold }
          pay:  { kind: task }
        transitions: { hold: [pay] }
    transitions: { book: [inner] }
transitions: { start: [outer] }
`;
    const log: string[] = [];
    let pays = 0;
    const handlers: TaskHandlers = {
      book: async (input) => {
        log.push(`book#${(input as { attempt: number }).attempt}`);
        return 'B';
      },
      unbook: async () => {
        log.push('unbook');
        return null;
      },
      hold: async () => {
        log.push('hold');
        return 'H';
      },
      unhold: async () => {
        log.push('unhold');
        return null;
      },
      pay: async () => {
        pays++;
        log.push(`pay#${pays}`);
        if (pays === 1) throw new Error('declined');
        return 'paid';
      },
    };
    const { view, records } = await run(yaml, handlers);
    expect(view.state).toBe('SUCCESS');
    // Inner REVERT undoes hold; the outer RETRY then undoes book and runs both again.
    expect(log).toEqual(['book#1', 'hold', 'pay#1', 'unhold', 'unbook', 'book#2', 'hold', 'pay#2']);
    const inner = records.filter((r) => r.activity === 'outer.inner');
    expect(inner.map((r) => [r.dimension, r.status]).sort()).toEqual([
      ['outer#1', 'REVERTED'],
      ['outer#2', 'SUCCESS'],
    ]);
    expect(scopeRecord(records, 'outer')?.status).toBe('SUCCESS');
  });
});
