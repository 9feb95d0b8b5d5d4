/**
 * `kind: scope`: its members run in a thread of their own, see each other by short id and
 * the outer activities by id; the scope ends when none of them is active, with its output
 * or the error of a member nothing handled; status prints the key compositionally.
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
let client: Client;

beforeEach(async () => {
  ({ store, close } = await openTestStore());
  client = new Client(store);
});
afterEach(async () => close());

async function run(yaml: string, handlers: TaskHandlers, input: Json = {}, clock?: SimulatedClock) {
  const wf = singleAttempt(compileWorkflow(yaml));
  await client.deploy(wf);
  const job = await client.start(wf.workflow, input);
  const stepper = new EngineStepper(store, handlers, clock);
  await stepper.runUntilIdle();
  return { view: await client.status(job.id), job, wf };
}

const PAYMENT = `
workflow: payment
activities:
  start: { kind: trigger }
  order: { kind: task }
  payment:
    kind: scope
    activities:
      reserve: { kind: task, input: "{ 'amount': start.output.amount }" }
      charge:  { kind: task, input: "{ 'hold': reserve.output }" }
      order:   { kind: task, input: "'inner order shadows the outer one'" }
    transitions: { reserve: [charge] }
    output: "{ 'charged': charge.output, 'inner': order.output }"
  receipt: { kind: task, input: "payment.output" }
transitions: { start: [order], order: [payment], payment: [receipt] }
`;

describe('scope', () => {
  it('runs its members in its own thread, ends with its output, and the key shows its members between 1 and 2', async () => {
    const seen: Record<string, { input: Json; dimension: string }> = {};
    const record =
      (name: string, output: Json) => async (input: Json, ctx: { dimension: string }) => {
        seen[name] = { input, dimension: ctx.dimension };
        return output;
      };
    const { view } = await run(
      PAYMENT,
      {
        order: async (input, ctx) => {
          // The outer `order` (the inner one has the same handler name).
          if (ctx.dimension === '') return { amount: 12 };
          seen.innerOrder = { input, dimension: ctx.dimension };
          return 'inner';
        },
        reserve: record('reserve', 'hold-1'),
        charge: record('charge', 'charged-12'),
        receipt: record('receipt', 'ok'),
      },
      { amount: 12 },
    );
    expect(view.state).toBe('SUCCESS');
    expect(seen.reserve).toEqual({ input: { amount: 12 }, dimension: 'payment#1' });
    expect(seen.charge).toEqual({ input: { hold: 'hold-1' }, dimension: 'payment#1' });
    expect(seen.innerOrder?.input).toBe('inner order shadows the outer one');
    expect(seen.receipt?.input).toEqual({ charged: 'charged-12', inner: 'inner' });
    // Sorted ids: order, payment, payment.charge, payment.order, payment.reserve, receipt, start.
    expect(view.collation).toBe('661666266');
  });

  it('fails with the error of a member nothing handled, naming it; on: error from the scope takes it', async () => {
    const yaml = (handled: boolean) => `
workflow: scoped-failure-${handled}
activities:
  start: { kind: trigger }
  work:
    kind: scope
    activities:
      a: { kind: task }
      b: { kind: task }
    transitions: { a: [b] }
  recover: { kind: task }
transitions:
  start: [work]
  ${handled ? 'work: [{ to: recover, on: error }]' : 'work: [recover]'}
`;
    const handlers: TaskHandlers = {
      a: async () => 1,
      b: async () => {
        throw new Error('card declined');
      },
      recover: async () => 'recovered',
    };
    const failed = await run(yaml(false), handlers);
    expect(failed.view.state).toBe('FAILURE');
    expect(failed.view.error?.message).toMatch(
      /activity work failed: activity work\.b failed: card declined/,
    );

    const handled = await run(yaml(true), handlers);
    expect(handled.view.state).toBe('SUCCESS');
    const recover = handled.view.activities.find((a) => a.id === 'recover');
    expect(recover?.status).toBe('SUCCESS');
    // recover, start, work: the scope ends handled (6), its failed member keeps its 7
    // inside the bookends.
    expect(handled.view.collation).toBe('6661672');
  });

  it('nests: a scope inside a scope ends first, and the outer one ends with it', async () => {
    const { view } = await run(
      `
workflow: nested
activities:
  start: { kind: trigger }
  outer:
    kind: scope
    activities:
      first: { kind: task }
      inner:
        kind: scope
        activities:
          deep: { kind: task, input: "first.output + 1" }
        output: "deep.output"
    transitions: { first: [inner] }
    output: "inner.output * 10"
transitions: { start: [outer] }
output: "outer.output"
`,
      { first: async () => 1, deep: async (input) => (input as number) + 1 },
    );
    expect(view.state).toBe('SUCCESS');
    expect(view.output).toBe(30);
    // outer, outer.first, outer.inner, outer.inner.deep, start
    expect(view.collation).toBe('616616226');
  });

  const SCOPED_LOOP = `
workflow: scoped-loop
activities:
  start: { kind: trigger }
  loop:
    kind: scope
    activities:
      work: { kind: task }
      again: { kind: cycle, ancestor: work, max: 5 }
    transitions: { work: [{ to: again, when: "work.output < 3" }] }
    output: "work.output"
transitions: { start: [loop] }
output: "loop.output"
`;

  it('runs a cycle inside a scope in threads under the scope’s own, and ends when the loop exits', async () => {
    const dimensions: string[] = [];
    let calls = 0;
    const { view } = await run(SCOPED_LOOP, {
      work: async (_input, ctx) => {
        dimensions.push(ctx.dimension);
        return ++calls;
      },
    });
    expect(view.state).toBe('SUCCESS');
    expect(view.output).toBe(3);
    expect(dimensions).toEqual(['loop#1', 'loop#1/loop.again#1', 'loop#1/loop.again#2']);
    // loop, loop.again (skipped on the exit), loop.work, start
    expect(view.collation).toBe('613626');
  });

  it('gives the last iteration’s output when every step lands in the same millisecond', async () => {
    // The scope's output reads the newest `work`: the last run's record, stored RUNNING by
    // the step that entered it and made SUCCESS by the step that closes the scope. With
    // both at one time (a fast machine; here a clock that stands still) the stale stored
    // version once won the tie, and the job ended SUCCESS with output null.
    let calls = 0;
    const { view } = await run(
      SCOPED_LOOP,
      { work: async () => ++calls },
      {},
      new SimulatedClock(),
    );
    expect(view.state).toBe('SUCCESS');
    expect(view.output).toBe(3);
  });
});
