/**
 * Seed 000 end to end: the quick-brown-fox graph run by the engine, one message at a
 * time, reaches each of the seed's collation keys at the matching points — the trigger,
 * Examples 1–5 (skip propagation, a paused and released hook) and the error example.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { openTestStore } from '../../support/store-under-test.js';

function foxWorkflow(ate: string) {
  return compileWorkflow(`
workflow: fox-${ate.includes('hook') ? 'hook' : 'task'}
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
`);
}

const handlers = (path: string) => ({
  brown: async () => ({ ok: true }),
  fox: async () => ({ path }),
  jumped: async () => ({ ok: true }),
  slept: async () => ({ ok: true }),
  ate: async () => {
    throw new Error('indigestion');
  },
});

describe('seed 000: quick => brown => fox => (jumped|(slept => ate))', () => {
  let store: Store;
  let close: () => Promise<void>;
  let client: Client;

  beforeEach(async () => {
    ({ store, close } = await openTestStore());
    client = new Client(store);
  });
  afterEach(async () => close());

  it('orders positions ate, brown, fox, jumped, quick, slept', () => {
    expect(foxWorkflow('{ kind: task }').order).toEqual([
      'ate',
      'brown',
      'fox',
      'jumped',
      'quick',
      'slept',
    ]);
  });

  it('reaches 999969…, Example 1, Example 2 (skip spreads to ate) and Example 3', async () => {
    const wf = foxWorkflow('{ kind: task }');
    await client.deploy(wf);
    const job = await client.start(wf.workflow, {});
    const stepper = new EngineStepper(store, handlers('jumped'));
    const keys: string[] = [await stepper.key(job.id)];
    await stepper.runUntilIdle(job.id, (key) => keys.push(key));
    expect(keys[0]).toBe('999999000000000');
    expect(keys).toContain('999969000000000');
    expect(keys).toContain('968969000000000');
    expect(keys).toContain('366863000000000');
    expect(keys.at(-1)).toBe('366663000000000');
    // In the seed's order.
    const seen = ['999969000000000', '968969000000000', '366863000000000', '366663000000000'].map(
      (k) => keys.indexOf(k),
    );
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    const status = await client.status(job.id);
    expect(status.state).toBe('SUCCESS');
    expect(status.activities.map((a) => [a.id, a.digit])).toEqual([
      ['quick', 6],
      ['brown', 6],
      ['fox', 6],
      ['jumped', 6],
      ['slept', 3],
      ['ate', 3],
    ]);
  });

  it('reaches Example 4 (ate paused) and, on its signal, Example 5', async () => {
    const wf = foxWorkflow('{ kind: hook, signal: release }');
    await client.deploy(wf);
    const job = await client.start(wf.workflow, {});
    const stepper = new EngineStepper(store, handlers('slept'));
    await stepper.runUntilIdle();
    expect(await stepper.key(job.id)).toBe('566366000000000');
    expect((await client.status(job.id)).state).toBe('RUNNING');
    await client.signal(job.id, 'release', { fed: true });
    await stepper.runUntilIdle();
    expect(await stepper.key(job.id)).toBe('466366000000000');
    const done = await client.result(job.id);
    expect(done.state).toBe('SUCCESS');
    expect(done.output).toEqual({ ate: { fed: true } });
  });

  it('reaches the ERROR example and ends the job in FAILURE with the error', async () => {
    const wf = foxWorkflow('{ kind: task, retry: { attempts: 1 } }');
    await client.deploy(wf);
    const job = await client.start(wf.workflow, {});
    const stepper = new EngineStepper(store, handlers('slept'));
    await stepper.runUntilIdle();
    expect(await stepper.key(job.id)).toBe('766366000000000');
    const done = await client.result(job.id);
    expect(done.state).toBe('FAILURE');
    expect(done.error?.message).toContain('indigestion');
    expect(done.error?.activity).toBe('ate');
  });
});
