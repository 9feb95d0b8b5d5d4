/**
 * A job's end is readable off its collation key: a SUCCESS job's final key holds no 7
 * (errored) and a FAILURE job's key holds one. An error or timeout a transition took is
 * handled, so its activity ends on its success digit; one that no transition took ends on 7.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import type { TaskHandlers } from '../../../src/worker/task-handler.js';
import { EngineStepper } from '../../support/engine-stepper.js';
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

/** Runs a workflow until idle (after `advanceMs` of simulated time); returns its end. */
async function end(yaml: string, handlers: TaskHandlers, advanceMs = 0) {
  const wf = compileWorkflow(yaml);
  await client.deploy(wf);
  const job = await client.start(wf.workflow, {});
  const stepper = new EngineStepper(store, handlers, clock);
  await stepper.runUntilIdle();
  if (advanceMs > 0) {
    await clock.advance(advanceMs);
    await stepper.runUntilIdle();
  }
  const view = await client.status(job.id);
  // The rule, both ways.
  expect((view.collation ?? '').includes('7')).toBe(view.state === 'FAILURE');
  return view;
}

const fox = (ate: string) => `
workflow: fox
activities:
  quick:  { kind: trigger }
  brown:  { kind: task }
  fox:    { kind: task }
  jumped: { kind: task }
  slept:  { kind: task }
  ate:    ${ate}
transitions:
  quick: [brown]
  brown: [fox]
  fox:
    - { to: jumped, when: "fox.output.path = 'jumped'" }
    - { to: slept, when: "fox.output.path = 'slept'" }
  slept: [ate]
`;
const foxHandlers: TaskHandlers = {
  brown: async () => ({ ok: true }),
  fox: async () => ({ path: 'slept' }),
  slept: async () => ({ ok: true }),
  ate: async () => {
    throw new Error('indigestion');
  },
};

const compensate = (errorPath: string) => `
workflow: compensate
activities:
  start:  { kind: trigger }
  charge: { kind: task, retry: { attempts: 1 } }
  refund: { kind: task }
  ship:   { kind: task }
transitions:
  start: [charge]
  charge:
    - ship
    - ${errorPath}
`;
const compensateHandlers: TaskHandlers = {
  charge: async () => {
    throw new Error('card declined');
  },
  refund: async () => ({ refunded: true }),
  ship: async () => ({ shipped: true }),
};

describe('the final key tells how a job ended', () => {
  it('a hook that times out with no on: timeout path ends on 7: FAILURE 766366000000000', async () => {
    const view = await end(
      fox('{ kind: hook, signal: feed, timeout: 1h }'),
      foxHandlers,
      3_600_000,
    );
    expect(view.state).toBe('FAILURE');
    expect(view.collation).toBe('766366000000000');
    expect(view.error).toMatchObject({ name: 'TimeoutError', code: 'TIMEOUT', activity: 'ate' });
  });

  it('a plain failing task ends on 7: FAILURE 766366000000000', async () => {
    const view = await end(fox('{ kind: task, retry: { attempts: 1 } }'), foxHandlers);
    expect(view.state).toBe('FAILURE');
    expect(view.collation).toBe('766366000000000');
    expect(view.error?.message).toContain('indigestion');
  });

  it('an error an on: error path took ends on 6: SUCCESS 663600000000000', async () => {
    // Positions: charge, refund, ship, start.
    const view = await end(compensate('{ to: refund, on: error }'), compensateHandlers);
    expect(view.state).toBe('SUCCESS');
    expect(view.collation).toBe('663600000000000');
    // The activity itself still says it failed, and why.
    expect(view.activities.find((a) => a.id === 'charge')?.digit).toBe(6);
    const charge = await store.getActivity(view.id, 'charge');
    expect(charge?.status).toBe('FAILURE');
    expect(charge?.error?.message).toBe('card declined');
  });

  it('an error whose on: error path is not taken (when: false) fails the job: 733600000000000', async () => {
    const view = await end(
      compensate(`{ to: refund, on: error, when: "charge.error.message = 'nope'" }`),
      compensateHandlers,
    );
    expect(view.state).toBe('FAILURE');
    expect(view.collation).toBe('733600000000000');
    expect(view.error).toMatchObject({ activity: 'charge' });
  });

  it('a hook timeout an on: timeout path took ends on 4: SUCCESS 463600000000000', async () => {
    const view = await end(
      `
workflow: approval
activities:
  start:   { kind: trigger }
  approve: { kind: hook, signal: approve, timeout: 1h }
  ship:    { kind: task }
  remind:  { kind: task }
transitions:
  start: [approve]
  approve:
    - ship
    - { to: remind, on: timeout }
`,
      { ship: async () => ({}), remind: async () => ({}) },
      3_600_000,
    );
    expect(view.state).toBe('SUCCESS');
    // Positions: approve, remind, ship, start.
    expect(view.collation).toBe('463600000000000');
  });

  it('a cycle past its limit whose on: error path is taken ends on 6: SUCCESS 6666', async () => {
    const view = await end(
      `
workflow: bounded
activities:
  start: { kind: trigger }
  work:  { kind: task }
  again: { kind: cycle, ancestor: work, max: 3 }
  stop:  { kind: task }
transitions:
  start: [work]
  work: [again]
  again:
    - { to: stop, on: error }
`,
      { work: async () => 1, stop: async () => 'stopped' },
    );
    expect(view.state).toBe('SUCCESS');
    // Positions: again, start, stop, work.
    expect(view.collation).toBe('666600000000000');
  });
});
